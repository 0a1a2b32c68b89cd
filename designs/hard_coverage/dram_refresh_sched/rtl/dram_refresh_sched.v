// dram_refresh_sched: command scheduler of a four-bank DRAM with an open-page policy and
// postponed refreshes. A request (req_valid, req_bank, req_row) is taken in READY: a row
// hit (the bank is open on that row) goes straight to ACCESS; a miss (the bank is closed)
// activates the row first (ACT, two cycles); a conflict (the bank is open on another row)
// precharges the bank (PRE, two cycles), then activates. ACCESS lasts one cycle and
// returns to READY; rows stay open. A refresh falls due every 64 cycles (refi_cnt) and
// adds one to ref_pend. In READY a due refresh starts when no request is waiting, so a
// busy bus postpones it, up to eight times: with eight due the refresh is forced ahead
// of the request (forced = 1). A refresh first precharges every open bank (PREALL, two
// cycles, skipped when all are closed), then takes eight cycles (REFRESH), removing one
// due refresh. hit_streak counts consecutive row hits (saturating at 7); a miss or a
// conflict clears it. Asynchronous active-low reset.
module dram_refresh_sched (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       req_valid,
    input  wire [1:0] req_bank,
    input  wire [3:0] req_row,
    output wire       req_ready,
    output reg  [2:0] state,
    output reg  [5:0] refi_cnt,
    output reg  [3:0] ref_pend,
    output reg  [3:0] open_valid,
    output reg  [1:0] result,      // the last request: 1 hit, 2 miss, 3 conflict
    output reg  [1:0] res_bank,
    output reg  [2:0] hit_streak,
    output reg  [2:0] wait_cnt,
    output reg        forced
);
    localparam [2:0] S_READY = 3'd0, S_ACT = 3'd1, S_PRE = 3'd2, S_ACCESS = 3'd3,
                     S_PREALL = 3'd4, S_REFRESH = 3'd5;
    localparam [1:0] R_HIT = 2'd1, R_MISS = 2'd2, R_CONFLICT = 2'd3;

    reg  [15:0] open_rows;     // the open row of bank b in bits 4b+3..4b
    reg  [3:0]  row_q;

    wire tick      = (refi_cnt == 6'd63);
    wire ref_start = (state == S_READY) && (ref_pend != 4'd0) && (!req_valid || ref_pend == 4'd8);
    wire ref_done  = (state == S_REFRESH) && (wait_cnt == 3'd7);
    wire is_open   = open_valid[req_bank];
    wire row_match = (open_rows[{req_bank, 2'b00} +: 4] == req_row);

    assign req_ready = (state == S_READY) && (ref_pend != 4'd8);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state       <= S_READY;
            refi_cnt    <= 6'd0;
            ref_pend    <= 4'd0;
            open_valid  <= 4'd0;
            result      <= 2'd0;
            res_bank    <= 2'd0;
            hit_streak  <= 3'd0;
            wait_cnt    <= 3'd0;
            forced      <= 1'b0;
            row_q       <= 4'd0;
            open_rows   <= 16'd0;
        end else begin
            refi_cnt <= refi_cnt + 6'd1;
            if (tick && !ref_done && ref_pend != 4'd8)
                ref_pend <= ref_pend + 4'd1;
            else if (ref_done && !tick)
                ref_pend <= ref_pend - 4'd1;
            case (state)
                S_READY: begin
                    wait_cnt <= 3'd0;
                    if (ref_start) begin
                        forced <= req_valid;            // only with eight due
                        state  <= (open_valid != 4'd0) ? S_PREALL : S_REFRESH;
                    end else if (req_valid) begin
                        res_bank <= req_bank;
                        row_q    <= req_row;
                        if (!is_open) begin
                            state      <= S_ACT;
                            result     <= R_MISS;
                            hit_streak <= 3'd0;
                        end else if (row_match) begin
                            state  <= S_ACCESS;
                            result <= R_HIT;
                            if (hit_streak != 3'd7)
                                hit_streak <= hit_streak + 3'd1;
                        end else begin
                            state      <= S_PRE;
                            result     <= R_CONFLICT;
                            hit_streak <= 3'd0;
                        end
                    end
                end
                S_PRE: begin
                    wait_cnt <= wait_cnt + 3'd1;
                    if (wait_cnt == 3'd1) begin
                        open_valid[res_bank] <= 1'b0;
                        state    <= S_ACT;
                        wait_cnt <= 3'd0;
                    end
                end
                S_ACT: begin
                    wait_cnt <= wait_cnt + 3'd1;
                    if (wait_cnt == 3'd1) begin
                        open_valid[res_bank] <= 1'b1;
                        open_rows[{res_bank, 2'b00} +: 4] <= row_q;
                        state    <= S_ACCESS;
                        wait_cnt <= 3'd0;
                    end
                end
                S_ACCESS: begin
                    state <= S_READY;
                end
                S_PREALL: begin
                    wait_cnt <= wait_cnt + 3'd1;
                    if (wait_cnt == 3'd1) begin
                        open_valid <= 4'd0;
                        state      <= S_REFRESH;
                        wait_cnt   <= 3'd0;
                    end
                end
                default: begin                          // S_REFRESH
                    wait_cnt <= wait_cnt + 3'd1;
                    if (wait_cnt == 3'd7) begin
                        state    <= S_READY;
                        wait_cnt <= 3'd0;
                        forced   <= 1'b0;
                    end
                end
            endcase
        end
    end
endmodule
