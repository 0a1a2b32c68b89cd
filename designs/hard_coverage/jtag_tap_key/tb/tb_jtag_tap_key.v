`timescale 1ns/1ps
// Self-checking testbench for jtag_tap_key. A model is stepped at each rising edge and
// every output (tdo included) is compared each cycle. The directed part reaches every
// functional bin of coverage.yaml: the whole IDCODE read out (32 bits, then 40 and 70),
// DR scans of 0, 3, 10 and 20 bits (one through Pause-DR), an IR scan through Pause-IR,
// the key C0DE shifted in (unlocked), a control write accepted and one refused, a wrong
// key (locked again), Test-Logic-Reset from Select-IR-Scan with the port unlocked, and
// every instruction; then 1500 random steps (about 38,000 cycles): runs of random tms and
// tdi, scans of random instructions and lengths, keys (mostly right) followed by control
// writes, with a few resets.
module tb_jtag_tap_key;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         tms, tdi;
    wire [3:0]  tap_state, ir, ir_shift;
    wire [31:0] dr;
    wire [5:0]  shift_cnt;
    wire [7:0]  ctrl;
    wire        unlocked, id_read, tdo;

    jtag_tap_key dut (.clk(clk), .rst_n(rst_n), .tms(tms), .tdi(tdi), .tap_state(tap_state), .ir(ir),
                      .ir_shift(ir_shift), .dr(dr), .shift_cnt(shift_cnt), .unlocked(unlocked), .ctrl(ctrl),
                      .id_read(id_read), .tdo(tdo));

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

    // the TAP controller's next state, from the standard's table
    function [3:0] tap_next;
        input [3:0] s; input t;
        begin
            case (s)
                0: tap_next = t ? 0 : 1;     1: tap_next = t ? 2 : 1;
                2: tap_next = t ? 9 : 3;     3: tap_next = t ? 5 : 4;
                4: tap_next = t ? 5 : 4;     5: tap_next = t ? 8 : 6;
                6: tap_next = t ? 7 : 6;     7: tap_next = t ? 8 : 4;
                8: tap_next = t ? 2 : 1;     9: tap_next = t ? 0 : 10;
                10: tap_next = t ? 12 : 11;  11: tap_next = t ? 12 : 11;
                12: tap_next = t ? 15 : 13;  13: tap_next = t ? 14 : 13;
                14: tap_next = t ? 15 : 11;  default: tap_next = t ? 2 : 1;
            endcase
        end
    endfunction

    reg  [3:0]  m_state, m_ir, m_irs;
    reg  [31:0] m_dr;
    reg  [7:0]  m_ctrl;
    reg         m_unl, m_idr, m_tdo;
    integer     m_cnt;
    integer     errors, n, k, n_unlock, n_ctrl, n_idread, n_tlr;

    task check;
        begin
            m_tdo = (m_state == 4) ? m_dr[0] : (m_state == 11) ? m_irs[0] : 1'b0;
            if (tap_state !== m_state || ir !== m_ir || ir_shift !== m_irs || dr !== m_dr ||
                shift_cnt !== m_cnt[5:0] || unlocked !== m_unl || ctrl !== m_ctrl || id_read !== m_idr ||
                tdo !== m_tdo) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d ir=%h irs=%h dr=%h cnt=%0d unl=%b ctrl=%h idr=%b tdo=%b expected %0d %h %h %h %0d %b %h %b %b",
                             $time, tap_state, ir, ir_shift, dr, shift_cnt, unlocked, ctrl, id_read, tdo,
                             m_state, m_ir, m_irs, m_dr, m_cnt, m_unl, m_ctrl, m_idr, m_tdo);
            end
        end
    endtask

    task model_reset;
        begin
            m_state = 0; m_ir = 4'b0001; m_irs = 0; m_dr = 0; m_cnt = 0; m_unl = 0; m_ctrl = 0; m_idr = 0;
        end
    endtask

    task model_step;
        begin
            case (m_state)
                0: begin m_ir = 4'b0001; if (m_unl) n_tlr = n_tlr + 1; m_unl = 0; m_ctrl = 0; end
                10: m_irs = 4'b0101;
                11: m_irs = {tdi, m_irs[3:1]};
                15: m_ir = m_irs;
                3: begin
                    m_cnt = 0;
                    m_dr = (m_ir == 4'b0001) ? 32'h4BA5_C0DF : (m_ir == 4'b1000) ? {31'd0, m_unl} :
                           (m_ir == 4'b1001) ? {24'd0, m_ctrl} : 32'd0;
                end
                4: begin
                    if (m_cnt < 63) m_cnt = m_cnt + 1;
                    if (m_ir == 4'b0001)      m_dr = {tdi, m_dr[31:1]};
                    else if (m_ir == 4'b1000) m_dr = {16'd0, tdi, m_dr[15:1]};
                    else if (m_ir == 4'b1001) m_dr = {24'd0, tdi, m_dr[7:1]};
                    else                      m_dr = {31'd0, tdi};
                end
                8: begin
                    if (m_ir == 4'b0001 && m_cnt >= 32) begin m_idr = 1; n_idread = n_idread + 1; end
                    if (m_ir == 4'b1000) begin
                        m_unl = (m_dr[15:0] == 16'hC0DE);
                        if (m_unl) n_unlock = n_unlock + 1;
                    end
                    if (m_ir == 4'b1001 && m_unl) begin m_ctrl = m_dr[7:0]; n_ctrl = n_ctrl + 1; end
                end
                default: ;
            endcase
            m_state = tap_next(m_state, tms);
        end
    endtask

    task cycle;
        input t; input d;
        begin
            @(negedge clk);
            check;
            tms = t; tdi = d;
            @(posedge clk);
            model_step;
        end
    endtask

    // from Run-Test/Idle (or Update-*), back to Run-Test/Idle
    task ir_scan;
        input [3:0] v; input integer pause_at;   // pause after this many bits (-1: none)
        integer j;
        begin
            cycle(1, 0); cycle(1, 0); cycle(0, 0); cycle(0, 0);   // Sel-DR, Sel-IR, Capture-IR, Shift-IR
            for (j = 0; j < 4; j = j + 1) begin
                if (j == pause_at) begin
                    cycle(1, 0); cycle(0, 0); cycle(0, 0); cycle(1, 0); cycle(0, 0);   // Ex1, Pause x2, Ex2, Shift
                end
                cycle(j == 3, v[j]);
            end
            cycle(1, 0); cycle(0, 0);                            // Update-IR, Run-Test/Idle
        end
    endtask

    reg [63:0] dbits;
    task dr_scan;
        input integer nbits; input integer pause_at;
        integer j;
        begin
            cycle(1, 0); cycle(0, 0);                            // Sel-DR, Capture-DR
            if (nbits == 0) cycle(1, 0);                         // Capture-DR to Exit1-DR
            else begin
                cycle(0, 0);                                     // to Shift-DR
                for (j = 0; j < nbits; j = j + 1) begin
                    if (j == pause_at) begin
                        cycle(1, 0); cycle(0, 0); cycle(0, 0); cycle(0, 0); cycle(1, 0); cycle(0, 0);
                    end
                    cycle(j == nbits - 1, dbits[j % 64]);
                end
            end
            cycle(1, 0); cycle(0, 0);                            // Update-DR, Run-Test/Idle
        end
    endtask

    initial begin
        errors = 0; n_unlock = 0; n_ctrl = 0; n_idread = 0; n_tlr = 0;
        seed = 32'h7A9_1D0C;
        tms = 1; tdi = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(0, 0);                                             // Run-Test/Idle
        dbits = 64'd0; dr_scan(32, -1);                          // the whole IDCODE
        dbits = {32'h1234_5678, 32'h9ABC_DEF0}; dr_scan(40, -1);
        dr_scan(70, -1);                                         // past the counter's limit
        dr_scan(0, -1); dr_scan(3, -1); dr_scan(10, -1); dr_scan(20, 9);
        ir_scan(4'b1001, -1); dbits = 64'h5A; dr_scan(8, -1);    // a refused control write
        ir_scan(4'b1000, 2); dbits = 64'hC0DE; dr_scan(16, -1);  // the key: unlocked
        ir_scan(4'b1001, -1); dbits = 64'hA5; dr_scan(8, 4);     // an accepted control write
        ir_scan(4'b1000, -1); dbits = 64'hC0DF; dr_scan(16, -1); // a wrong key
        dbits = 64'hC0DE; dr_scan(16, -1);
        ir_scan(4'b1111, -1); dbits = 64'h1; dr_scan(5, -1);
        ir_scan(4'b0011, -1); dr_scan(2, -1);
        ir_scan(4'b0001, -1);
        cycle(1, 0); cycle(1, 0); cycle(1, 0); cycle(0, 0);     // Sel-DR, Sel-IR, TLR (unlocked), RTI
        for (n = 0; n < 1500; n = n + 1) begin
            k = urand(0) % 10;
            dbits = {urand(0), urand(0)};
            if (k < 3) begin
                for (k = 0; k < 10; k = k + 1) cycle(urand(0), urand(0));
                while (m_state != 1) cycle(urand(0) % 3 == 0, urand(0));
            end else if (k < 5) ir_scan(urand(0) % 2 ? 4'b1000 + urand(0) % 2 : urand(0), urand(0) % 6 - 1);
            else if (k < 6) begin
                ir_scan(4'b1000, -1);                            // a key, right or wrong, then a write
                dbits = (urand(0) % 3) ? 64'hC0DE : {urand(0), urand(0)}; dr_scan(16, -1);
                ir_scan(4'b1001, -1); dbits = {urand(0), urand(0)}; dr_scan(8, urand(0) % 10 - 1);
            end
            else if (k < 7) dr_scan(32 + urand(0) % 8, urand(0) % 40);
            else dr_scan(urand(0) % 20, urand(0) % 25 - 1);
            if (urand(0) % 300 == 0) begin
                @(negedge clk); check;
                rst_n = 1'b0;
                #1 model_reset;
                check;
                @(posedge clk); #1 rst_n = 1'b1;
                cycle(0, 0);
            end
        end
        @(negedge clk);
        check;
        if (n_unlock < 20 || n_ctrl < 10 || n_idread < 20 || n_tlr < 2) begin
            $display("coverage: unlocks=%0d ctrl writes=%0d IDCODE reads=%0d resets while unlocked=%0d",
                     n_unlock, n_ctrl, n_idread, n_tlr);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d unlocks, %0d control writes, %0d IDCODE reads)",
                                  n_unlock, n_ctrl, n_idread);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
