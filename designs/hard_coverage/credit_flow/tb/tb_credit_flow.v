`timescale 1ns/1ps
// Self-checking testbench for credit_flow: directed drain to zero credits, a stall
// past 15 cycles, every credit returned at once, single returns at zero, a send and a
// return in the same cycle, over-returns, then 20000 cycles of random traffic where
// the receiver returns credits sparsely, with rare resets. A model is stepped at each
// rising edge; every output is checked every cycle.
module tb_credit_flow;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        req;
    reg  [7:0] data;
    reg  [2:0] cr_ret;
    wire       tx_valid, cr_err, stalled;
    wire [7:0] tx_data, sent;
    wire [2:0] credits;
    wire [3:0] stall_cnt, max_stall;

    credit_flow dut (.clk(clk), .rst_n(rst_n), .req(req), .data(data), .cr_ret(cr_ret),
                     .tx_valid(tx_valid), .tx_data(tx_data), .credits(credits), .stall_cnt(stall_cnt),
                     .max_stall(max_stall), .sent(sent), .cr_err(cr_err), .stalled(stalled));

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

    integer m_cr, m_stall, m_max, m_sent, t;
    reg     m_tx, m_err;
    reg [7:0] m_data;
    integer errors, n, r, n_zero, n_long, n_all;

    task check;
        begin
            if (tx_valid !== m_tx || tx_data !== m_data || credits !== m_cr[2:0] || stall_cnt !== m_stall[3:0] ||
                max_stall !== m_max[3:0] || sent !== m_sent[7:0] || cr_err !== m_err || stalled !== (m_stall != 0)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: tx=%b data=%h credits=%0d stall=%0d max=%0d sent=%0d err=%b expected tx=%b data=%h credits=%0d stall=%0d max=%0d sent=%0d err=%b",
                             $time, tx_valid, tx_data, credits, stall_cnt, max_stall, sent, cr_err,
                             m_tx, m_data, m_cr, m_stall, m_max, m_sent, m_err);
            end
        end
    endtask

    task model_reset;
        begin
            m_cr = 7; m_stall = 0; m_max = 0; m_sent = 0; m_tx = 0; m_err = 0; m_data = 0;
        end
    endtask

    task model_step;
        begin
            m_tx = req && m_cr > 0;
            if (req && m_cr == 0) begin
                if (m_stall < 15) m_stall = m_stall + 1;
                if (m_stall > m_max) m_max = m_stall;
                if (m_stall == 4) n_long = n_long + 1;
            end else
                m_stall = 0;
            if (m_cr == 0 && cr_ret == 7) n_all = n_all + 1;
            if (m_tx) begin m_data = data; m_sent = (m_sent + 1) % 256; end
            t = m_cr - m_tx + cr_ret;
            if (t > 7) begin m_cr = 7; m_err = 1; end
            else m_cr = t;
            if (m_cr == 0) n_zero = n_zero + 1;
        end
    endtask

    task cycle;
        input rq; input [2:0] ret;
        begin
            @(negedge clk);
            check;
            req = rq; data = urand(0); cr_ret = ret;
            @(posedge clk);
            model_step;
        end
    endtask

    integer i;
    initial begin
        errors = 0; n_zero = 0; n_long = 0; n_all = 0;
        seed = 32'hC4ED_17F0;
        req = 0; data = 0; cr_ret = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        for (i = 0; i < 7; i = i + 1) cycle(1, 0);       // spend every credit
        for (i = 0; i < 20; i = i + 1) cycle(1, 0);      // a long stall, saturating
        cycle(1, 7);                                      // all credits back while stalled
        for (i = 0; i < 7; i = i + 1) cycle(1, 0);
        cycle(0, 1); cycle(1, 1); cycle(1, 0); cycle(1, 0); cycle(0, 0);  // single returns at zero
        for (i = 0; i < 3; i = i + 1) cycle(1, 0);
        cycle(1, 0); cycle(0, 7);                         // short stall, all back at once
        cycle(1, 1); cycle(0, 2); cycle(1, 7);            // over-returns
        for (n = 0; n < 20000; n = n + 1) begin
            r = urand(0) % 100;
            cycle((urand(0) % 100) < (n % 2000 < 1000 ? 80 : 40),
                  r < 75 ? 3'd0 : (r < 92 ? 3'd1 : (r < 97 ? urand(0) % 8 : 3'd7)));
            if (urand(0) % 4000 == 0) begin
                @(negedge clk); check; req = 0; cr_ret = 0;
                #2 rst_n = 1'b0;
                #1 model_reset;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_zero < 100 || n_long < 20 || n_all < 5) begin
            $display("coverage: at zero=%0d stalls of 4=%0d all returned=%0d", n_zero, n_long, n_all);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d cycles at zero credits, %0d stalls of 4+, %0d full returns)", n_zero, n_long, n_all);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
