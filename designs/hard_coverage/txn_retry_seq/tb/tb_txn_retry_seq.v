`timescale 1ns/1ps
// Self-checking testbench for txn_retry_seq. A model is stepped at each rising edge and
// every output is compared each cycle. The directed part reaches every functional bin of
// coverage.yaml: a grant timeout, errors after retries, retries spent, success on each
// retry, bursts of every length (four beats without a wait), fifteen successes in a row
// and an abort at a saturated streak; then 8000 cycles of random traffic with a few resets.
module tb_txn_retry_seq;
    reg        clk = 1'b0;
    reg        rst;
    reg        start, gnt;
    reg  [1:0] len, rsp;
    wire       bus_req, done, aborted;
    wire [2:0] state;
    wire [1:0] beat, len_q, retry_cnt, abort_why;
    wire [3:0] gnt_wait, ok_streak;

    txn_retry_seq dut (.clk(clk), .rst(rst), .start(start), .len(len), .gnt(gnt), .rsp(rsp),
                       .bus_req(bus_req), .state(state), .beat(beat), .len_q(len_q), .retry_cnt(retry_cnt),
                       .gnt_wait(gnt_wait), .ok_streak(ok_streak), .abort_why(abort_why), .done(done),
                       .aborted(aborted));

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

    integer m_state, m_beat, m_len, m_rc, m_gw, m_streak, m_why, m_bo;
    integer errors, n, n_done, n_abort, n_sat;
    integer pend, k;
    reg [1:0] rsps [0:15];

    task check;
        begin
            if (state !== m_state[2:0] || beat !== m_beat[1:0] || len_q !== m_len[1:0] || retry_cnt !== m_rc[1:0] ||
                gnt_wait !== m_gw[3:0] || ok_streak !== m_streak[3:0] || abort_why !== m_why[1:0] ||
                bus_req !== (m_state == 1) || done !== (m_state == 5) || aborted !== (m_state == 6)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d beat=%0d rc=%0d gw=%0d streak=%0d expected %0d %0d %0d %0d %0d",
                             $time, state, beat, retry_cnt, gnt_wait, ok_streak, m_state, m_beat, m_rc, m_gw, m_streak);
            end
        end
    endtask

    task model_step;
        begin
            if (rst) begin
                m_state = 0; m_beat = 0; m_len = 0; m_rc = 0; m_gw = 0; m_streak = 0; m_why = 0; m_bo = 0;
            end else case (m_state)
                0: if (start) begin m_state = 1; m_len = len; m_rc = 0; m_gw = 0; m_why = 0; end
                1: if (gnt) begin m_state = 2; m_beat = 0; m_gw = 0; end
                   else if (m_gw == 15) begin m_state = 6; m_why = 1; end
                   else m_gw = m_gw + 1;
                2: m_state = 3;
                3: if (rsp == 1) begin
                       if (m_beat == m_len) m_state = 5; else m_beat = m_beat + 1;
                   end else if (rsp == 2) begin
                       if (m_rc == 3) begin m_state = 6; m_why = 2; end
                       else begin m_state = 4; m_bo = 0; end
                   end else if (rsp == 3) begin m_state = 6; m_why = 3; end
                4: if (m_bo == (m_rc == 0 ? 1 : m_rc == 1 ? 3 : 7)) begin m_state = 1; m_rc = m_rc + 1; end
                   else m_bo = m_bo + 1;
                5: begin m_state = 0; n_done = n_done + 1; if (m_streak != 15) m_streak = m_streak + 1; else n_sat = n_sat + 1; end
                6: begin m_state = 0; n_abort = n_abort + 1; m_streak = 0; end
            endcase
        end
    endtask

    task cycle;
        input s; input [1:0] l; input g; input [1:0] r;
        begin
            @(negedge clk);
            check;
            start = s; len = l; gnt = g; rsp = r;
            @(posedge clk); model_step;
        end
    endtask

    // a whole transaction: `pend` responses from rsps[], the grant after `delay` cycles
    task txn;
        input [1:0] l; input integer delay;
        integer d;
        begin
            d = delay; k = 0;
            cycle(1, l, 0, 0);
            while (m_state != 0) begin
                if (m_state == 1) begin
                    if (d > 0) begin cycle(0, 0, 0, 0); d = d - 1; end else cycle(0, 0, 1, 0);
                end else if (m_state == 3) begin
                    cycle(0, 0, 0, rsps[k]); k = k + 1;
                end else cycle(0, 0, 0, 0);
            end
            if (k != pend) begin errors = errors + 1; $display("MISMATCH: %0d of %0d responses used", k, pend); end
        end
    endtask

    task r1; input [1:0] a; begin rsps[0] = a; pend = 1; end endtask
    task r2; input [1:0] a, b; begin rsps[0] = a; rsps[1] = b; pend = 2; end endtask
    task r4; input [1:0] a, b, c, d; begin rsps[0] = a; rsps[1] = b; rsps[2] = c; rsps[3] = d; pend = 4; end endtask

    initial begin
        seed = 32'hC0FF_EE11; errors = 0; n_done = 0; n_abort = 0; n_sat = 0;
        rst = 1'b1; start = 0; len = 0; gnt = 0; rsp = 0;
        @(posedge clk); model_step;
        @(negedge clk); rst = 1'b0;
        @(posedge clk); model_step;
        pend = 0; txn(0, 20);                          // grant timeout
        r2(2, 3); txn(0, 0);                           // error after one retry
        r4(1, 2, 2, 3); txn(1, 0);                     // error after two retries
        r4(2, 2, 2, 2); txn(0, 0);                     // retries spent
        r2(2, 1); txn(0, 0);                           // done on retry 1
        r4(2, 0, 2, 1); txn(0, 0);                     // done on retry 2
        r4(2, 2, 1, 2); rsps[4] = 1; rsps[5] = 1; pend = 6; txn(1, 0);   // done on retry 3
        r4(1, 1, 1, 1); txn(3, 0);                     // four beats, no wait
        r4(1, 0, 1, 1); txn(2, 0);
        r2(1, 1); txn(1, 0);
        r4(1, 1, 1, 0); rsps[4] = 1; pend = 5; txn(3, 3);   // a wait on the last beat
        for (n = 0; n < 8; n = n + 1) begin r1(1); txn(2'd0, n); end
        r1(1); txn(2'd0, 0);                           // a success at a saturated streak
        @(negedge clk);
        if (ok_streak !== 4'd15) begin errors = errors + 1; $display("MISMATCH: streak not saturated"); end
        r1(3); txn(0, 0);                              // abort at a saturated streak
        for (n = 0; n < 8000; n = n + 1) begin
            cycle(urand(0) % 4 == 0, urand(0), urand(0) % 3 != 0, (urand(0) % 5 == 0) ? 2'd2 + urand(0) % 2 : urand(0) % 2);
            if (urand(0) % 3000 == 0) begin
                @(negedge clk); check; rst = 1'b1;
                @(posedge clk); model_step;
                @(negedge clk); check; rst = 1'b0;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk); check;
        if (n_done < 50 || n_abort < 20 || n_sat < 1) begin
            errors = errors + 1; $display("coverage: done=%0d abort=%0d sat=%0d", n_done, n_abort, n_sat);
        end
        if (errors == 0) $display("TEST PASSED (%0d done, %0d aborted)", n_done, n_abort);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
