// debounce_keypad: 4x4 matrix keypad scanner with per-key debounce, auto-repeat and a
// ghosting detector. One column is driven low per cycle (col_n, columns 0-3 in turn);
// the active-low rows are registered with the column that was driven, and the next cycle
// the four keys of that column are sampled. A key changes its debounced state (down) when
// 16 consecutive samples differ from it; a sample that agrees restarts its count (a
// restart from 8 or more is reported as a bounce). Only one key changes per sample: when
// several keys of a column are due together the lowest row goes first, the others wait
// for the next sample (deferred). Key events: press (1), release (2), repeat (3), with the
// key code {column, row}. Two keys in one row and two keys in one column may show a ghost
// key: a press that makes that pattern is dropped (ghost_drop) and never reported, and a
// key that was never reported is released silently. A single key held down repeats after
// 320 cycles, then every 64 cycles. Synchronous active-high reset.
module debounce_keypad (
    input  wire        clk,
    input  wire        rst,
    input  wire [3:0]  row_n,
    output wire [3:0]  col_n,
    output reg         key_valid,
    output reg  [1:0]  key_evt,
    output reg  [3:0]  key_code,
    output reg  [15:0] down,
    output reg         ghost_drop,
    output reg         bounce,
    output reg         deferred,
    output reg  [8:0]  hold_cnt,
    output reg  [1:0]  rpt_cnt,
    output wire        ghost,
    output wire [4:0]  n_down
);
    localparam [8:0] REPEAT_AT = 9'd319, REPEAT_RELOAD = 9'd256;

    reg  [1:0]  col_sel, col_q;
    reg  [3:0]  row_q;
    reg  [63:0] cnt;       // per key, 4 bits: key k at cnt[4k +: 4]
    reg  [15:0] rep;       // keys whose press was reported

    assign col_n = ~(4'b0001 << col_sel);

    // two keys in one row, two keys in one column, for a key state
    function [1:0] pattern;
        input [15:0] d;
        integer i, j;
        reg [2:0] n;
        reg       r2, c2;
        begin
            r2 = 1'b0;
            c2 = 1'b0;
            for (i = 0; i < 4; i = i + 1) begin
                n = 3'd0;
                for (j = 0; j < 4; j = j + 1)
                    n = n + {2'b00, d[4 * j + i]};
                r2 = r2 | (n >= 3'd2);
                n = 3'd0;
                for (j = 0; j < 4; j = j + 1)
                    n = n + {2'b00, d[4 * i + j]};
                c2 = c2 | (n >= 3'd2);
            end
            pattern = {r2, c2};
        end
    endfunction

    function [4:0] ones;
        input [15:0] d;
        integer i;
        begin
            ones = 5'd0;
            for (i = 0; i < 16; i = i + 1)
                ones = ones + {4'd0, d[i]};
        end
    endfunction

    wire [1:0] pat = pattern(down);
    // the key down when exactly one is
    wire [3:0] held = {|(down & 16'hFF00), |(down & 16'hF0F0), |(down & 16'hCCCC), |(down & 16'hAAAA)};
    assign ghost  = pat[1] && pat[0];
    assign n_down = ones(down);

    // the keys of the sampled column: which differ, which are due to change
    reg  [3:0]  diff, due;
    reg  [1:0]  frow;
    reg  [3:0]  fkey;
    reg  [15:0] down_n;
    reg  [1:0]  pat_n;
    integer     r;
    always @(*) begin
        for (r = 0; r < 4; r = r + 1) begin
            diff[r] = row_q[r] != down[{col_q, r[1:0]}];
            due[r]  = diff[r] && cnt[4 * {col_q, r[1:0]} +: 4] == 4'd15;
        end
        frow   = due[0] ? 2'd0 : due[1] ? 2'd1 : due[2] ? 2'd2 : 2'd3;
        fkey   = {col_q, frow};
        down_n = down ^ (16'd1 << fkey);
        pat_n  = pattern(down_n);
    end

    always @(posedge clk) begin
        if (rst) begin
            col_sel <= 2'd0; col_q <= 2'd0; row_q <= 4'd0; cnt <= 64'd0; rep <= 16'd0; down <= 16'd0;
            key_valid <= 1'b0; key_evt <= 2'd0; key_code <= 4'd0; ghost_drop <= 1'b0; bounce <= 1'b0;
            deferred <= 1'b0; hold_cnt <= 9'd0; rpt_cnt <= 2'd0;
        end else begin
            col_sel    <= col_sel + 2'd1;
            col_q      <= col_sel;
            row_q      <= ~row_n;
            key_valid  <= 1'b0;
            ghost_drop <= 1'b0;
            bounce     <= 1'b0;
            deferred   <= (due & (due - 4'd1)) != 4'd0;
            for (r = 0; r < 4; r = r + 1) begin
                if (!diff[r]) begin
                    if (cnt[4 * {col_q, r[1:0]} + 3])
                        bounce <= 1'b1;
                    cnt[4 * {col_q, r[1:0]} +: 4] <= 4'd0;
                end else if (!due[r])
                    cnt[4 * {col_q, r[1:0]} +: 4] <= cnt[4 * {col_q, r[1:0]} +: 4] + 4'd1;
                else if (r[1:0] == frow)
                    cnt[4 * {col_q, r[1:0]} +: 4] <= 4'd0;
            end
            if (due != 4'd0) begin
                down     <= down_n;
                hold_cnt <= 9'd0;
                rpt_cnt  <= 2'd0;
                key_code <= fkey;
                if (!down[fkey]) begin
                    if (pat_n[1] && pat_n[0])
                        ghost_drop <= 1'b1;
                    else begin
                        key_valid <= 1'b1;
                        key_evt   <= 2'd1;
                        rep[fkey] <= 1'b1;
                    end
                end else if (rep[fkey]) begin
                    key_valid <= 1'b1;
                    key_evt   <= 2'd2;
                    rep[fkey] <= 1'b0;
                end
            end else if (n_down == 5'd1 && rep[held]) begin
                if (hold_cnt == REPEAT_AT) begin
                    key_valid <= 1'b1;
                    key_evt   <= 2'd3;
                    key_code  <= held;
                    hold_cnt  <= REPEAT_RELOAD;
                    if (rpt_cnt != 2'd3)
                        rpt_cnt <= rpt_cnt + 2'd1;
                end else
                    hold_cnt <= hold_cnt + 9'd1;
            end else
                hold_cnt <= 9'd0;
        end
    end
endmodule
