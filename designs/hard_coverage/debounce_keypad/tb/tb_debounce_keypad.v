`timescale 1ns/1ps
// Self-checking testbench for debounce_keypad. A keypad model answers the driven column
// with the rows of its pressed keys; a cycle model of the scanner (per-key sample counts,
// debounced state, reported keys, repeat timer) is stepped at each rising edge and every
// output is compared each cycle, and the test counts the events it expects. The directed
// part reaches every functional bin of coverage.yaml (with +vectors it prints its input
// rows, the rows of golden.json): the four diagonal keys together, two keys in a column
// (one deferred), two in a row, a third key that makes a ghost, a key held through four
// repeats and a key that bounces. Then 40 random key patterns, some with chatter.
module tb_debounce_keypad;
    reg         clk = 1'b0;
    reg         rst;
    reg  [15:0] pressed;
    reg  [3:0]  chatter;       // rows forced to read released this cycle
    wire [3:0]  row_n, col_n;
    wire        key_valid, ghost_drop, bounce, deferred, ghost;
    wire [1:0]  key_evt, rpt_cnt;
    wire [3:0]  key_code;
    wire [15:0] down;
    wire [8:0]  hold_cnt;
    wire [4:0]  n_down;

    debounce_keypad dut (.clk(clk), .rst(rst), .row_n(row_n), .col_n(col_n), .key_valid(key_valid),
                         .key_evt(key_evt), .key_code(key_code), .down(down), .ghost_drop(ghost_drop),
                         .bounce(bounce), .deferred(deferred), .hold_cnt(hold_cnt), .rpt_cnt(rpt_cnt),
                         .ghost(ghost), .n_down(n_down));

    // the keypad: a pressed key connects its column to its row (rows pulled up)
    assign row_n = ~(((!col_n[0]) ? pressed[3:0] : 4'd0) | ((!col_n[1]) ? pressed[7:4] : 4'd0) |
                     ((!col_n[2]) ? pressed[11:8] : 4'd0) | ((!col_n[3]) ? pressed[15:12] : 4'd0)) | chatter;

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    // ---------------------------------------------------------------- the model
    integer    m_cnt [0:15];
    reg [15:0] m_down, m_rep;
    reg [3:0]  m_rowq, m_code;
    reg [1:0]  m_col, m_colq, m_evt, m_rpt;
    reg        m_kv, m_gd, m_bounce, m_def;
    integer    m_hold, ndue, first, r, k, fk, one, i, j;

    function ghostly;
        input [15:0] d;
        integer a, b, n;
        reg rr, cc;
        begin
            rr = 0; cc = 0;
            for (a = 0; a < 4; a = a + 1) begin
                n = 0;
                for (b = 0; b < 4; b = b + 1) n = n + d[4 * b + a];
                if (n >= 2) rr = 1;
                n = 0;
                for (b = 0; b < 4; b = b + 1) n = n + d[4 * a + b];
                if (n >= 2) cc = 1;
            end
            ghostly = rr && cc;
        end
    endfunction

    function integer count16;
        input [15:0] d;
        integer a;
        begin
            count16 = 0;
            for (a = 0; a < 16; a = a + 1) count16 = count16 + d[a];
        end
    endfunction

    task model_reset;
        begin
            for (i = 0; i < 16; i = i + 1) m_cnt[i] = 0;
            m_down = 0; m_rep = 0; m_rowq = 0; m_code = 0; m_col = 0; m_colq = 0; m_evt = 0; m_rpt = 0;
            m_kv = 0; m_gd = 0; m_bounce = 0; m_def = 0; m_hold = 0;
        end
    endtask

    task model_step;
        begin
            ndue = 0; first = -1; m_bounce = 0; m_kv = 0; m_gd = 0;
            for (r = 0; r < 4; r = r + 1) begin
                k = 4 * m_colq + r;
                if (m_rowq[r] != m_down[k] && m_cnt[k] == 15) begin
                    ndue = ndue + 1;
                    if (first < 0) first = r;
                end
            end
            for (r = 0; r < 4; r = r + 1) begin
                k = 4 * m_colq + r;
                if (m_rowq[r] == m_down[k]) begin
                    if (m_cnt[k] >= 8) m_bounce = 1;
                    m_cnt[k] = 0;
                end else if (m_cnt[k] != 15)
                    m_cnt[k] = m_cnt[k] + 1;
                else if (r == first)
                    m_cnt[k] = 0;
            end
            m_def = ndue > 1;
            if (first >= 0) begin
                fk = 4 * m_colq + first;
                m_down[fk] = !m_down[fk];
                m_hold = 0; m_rpt = 0; m_code = fk;
                if (m_down[fk]) begin
                    if (ghostly(m_down)) m_gd = 1;
                    else begin m_kv = 1; m_evt = 1; m_rep[fk] = 1; end
                end else if (m_rep[fk]) begin
                    m_kv = 1; m_evt = 2; m_rep[fk] = 0;
                end
            end else if (count16(m_down) == 1 && (m_rep & m_down) != 0) begin
                if (m_hold == 319) begin
                    m_kv = 1; m_evt = 3; m_hold = 256;
                    for (i = 0; i < 16; i = i + 1) if (m_down[i]) m_code = i;
                    if (m_rpt != 3) m_rpt = m_rpt + 1;
                end else
                    m_hold = m_hold + 1;
            end else
                m_hold = 0;
            m_colq = m_col;
            m_rowq = ~row_n;
            m_col  = m_col + 1;
        end
    endtask

    integer errors, dump, n, n_press, n_rel, n_rpt, n_drop, n_def, n_bounce;

    always @(posedge clk) begin
        if (!rst) begin
            if (key_valid && key_evt == 2'd1) n_press = n_press + 1;
            if (key_valid && key_evt == 2'd2) n_rel = n_rel + 1;
            if (key_valid && key_evt == 2'd3) n_rpt = n_rpt + 1;
            if (ghost_drop) n_drop = n_drop + 1;
            if (deferred) n_def = n_def + 1;
            if (bounce) n_bounce = n_bounce + 1;
        end
    end

    task check;
        begin
            if (col_n !== ~(4'b0001 << m_col) || key_valid !== m_kv || down !== m_down || ghost_drop !== m_gd ||
                bounce !== m_bounce || deferred !== m_def || hold_cnt !== m_hold[8:0] || rpt_cnt !== m_rpt ||
                ghost !== ghostly(m_down) || n_down !== count16(m_down) ||
                (m_kv && (key_evt !== m_evt || key_code !== m_code))) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: col %b kv %b/%b evt %0d/%0d code %0d/%0d down %h/%h hold %0d/%0d",
                             $time, col_n, key_valid, m_kv, key_evt, m_evt, key_code, m_code, down, m_down,
                             hold_cnt, m_hold);
            end
        end
    endtask

    task tick;
        begin
            check;
            if (dump) $display("VEC {\"row_n\": %0d}", row_n);
            @(posedge clk);
            model_step;
            #1;
        end
    endtask

    task idle;
        input integer c;
        integer t;
        begin
            for (t = 0; t < c; t = t + 1) tick;
        end
    endtask

    task expect_events;
        input integer p, rl, rp, gd, df;
        begin
            if (n_press != p || n_rel != rl || n_rpt != rp || n_drop != gd || n_def != df) begin
                errors = errors + 1;
                $display("MISMATCH t=%0t: press %0d/%0d release %0d/%0d repeat %0d/%0d drop %0d/%0d deferred %0d/%0d",
                         $time, n_press, p, n_rel, rl, n_rpt, rp, n_drop, gd, n_def, df);
            end
        end
    endtask

    initial begin
        errors = 0; dump = 0;
        n_press = 0; n_rel = 0; n_rpt = 0; n_drop = 0; n_def = 0; n_bounce = 0;
        seed = 32'h6B3D_0A71;
        pressed = 16'd0; chatter = 4'd0; rst = 1'b1;
        repeat (3) @(posedge clk);
        model_reset;
        #1 rst = 1'b0;
        dump = $test$plusargs("vectors");
        // directed part (golden.json)
        idle(6);
        pressed = 16'h8421; idle(80);                // the diagonal: one key per row and column
        expect_events(4, 0, 0, 0, 0);
        pressed = 16'h0000; idle(80);
        expect_events(4, 4, 0, 0, 0);
        pressed = 16'h0003; idle(80);                // two keys of column 0, due together
        expect_events(6, 4, 0, 0, 1);
        pressed = 16'h0000; idle(80);
        expect_events(6, 6, 0, 0, 2);
        pressed = 16'h4004; idle(80);                // two keys of row 2
        pressed = 16'h0000; idle(80);
        expect_events(8, 8, 0, 0, 2);
        pressed = 16'h0011; idle(80);                // two keys of row 0
        pressed = 16'h0013; idle(80);                // and a third one in column 0: a ghost
        expect_events(10, 8, 0, 1, 2);
        pressed = 16'h0011; idle(80);                // the dropped key goes away silently
        pressed = 16'h0000; idle(80);
        expect_events(10, 10, 0, 1, 2);
        pressed = 16'h0040; idle(600);               // one key held: four repeats
        expect_events(11, 10, 4, 1, 2);  // a fifth repeat comes while the release is debounced
        pressed = 16'h0000; idle(80);
        pressed = 16'h0200; idle(40);                // a bounce: released after ten samples
        pressed = 16'h0000; idle(12);
        expect_events(11, 11, 5, 1, 2);
        if (n_bounce == 0) begin errors = errors + 1; $display("MISMATCH: no bounce"); end
        dump = 0;
        // random key patterns, a few keys at a time, sometimes with chatter
        for (n = 0; n < 40; n = n + 1) begin
            pressed = (16'd1 << (urand(0) % 16)) | ((urand(0) % 3 == 0) ? (16'd1 << (urand(0) % 16)) : 16'd0) |
                      ((urand(0) % 5 == 0) ? (16'd1 << (urand(0) % 16)) : 16'd0);
            for (j = 0; j < 60 + urand(0) % 500; j = j + 1) begin
                chatter = (j < 30 && urand(0) % 4 == 0) ? urand(0) : 4'd0;
                tick;
            end
            chatter = 4'd0;
            if (urand(0) % 2) begin pressed = 16'd0; idle(80); end
        end
        pressed = 16'd0; idle(100);
        if (n_press < 20 || n_rel < 20) begin errors = errors + 1; $display("MISMATCH: few events"); end
        if (errors == 0) $display("TEST PASSED (%0d presses, %0d releases, %0d repeats, %0d ghosts dropped)",
                                  n_press, n_rel, n_rpt, n_drop);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
