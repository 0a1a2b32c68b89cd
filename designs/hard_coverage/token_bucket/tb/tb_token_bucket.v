`timescale 1ns/1ps
// Self-checking testbench for token_bucket. A model is stepped at each rising edge and
// every output is compared each cycle. Directed phases reach every functional bin of
// coverage.yaml: requests at empty and with too few tokens, a 200-cycle idle stretch
// (idle_cnt saturates, the bucket fills and loses refills at full), grants of every cost
// from a full bucket (also on a refill tick), a drain to empty taking the last tokens
// exactly; then 6000 cycles of random traffic with rare requests and a few resets.
module tb_token_bucket;
    reg        clk = 1'b0;
    reg        rst;
    reg        req;
    reg  [1:0] cost;
    wire       grant, deny, overflow, full, empty, idle_long;
    wire [2:0] taken;
    wire [4:0] tokens;
    wire [5:0] idle_cnt;

    token_bucket dut (.clk(clk), .rst(rst), .req(req), .cost(cost), .grant(grant), .deny(deny),
                      .overflow(overflow), .taken(taken), .tokens(tokens), .idle_cnt(idle_cnt), .full(full),
                      .empty(empty), .idle_long(idle_long));

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

    integer m_tok, m_pre, m_idle, m_after, m_need;
    reg     m_grant, m_deny, m_ovf;
    integer errors, n, n_full_grant, n_lost;

    task check;
        begin
            if (tokens !== m_tok[4:0] || grant !== m_grant || taken !== (m_grant ? m_need : 0) || deny !== m_deny || overflow !== m_ovf ||
                idle_cnt !== m_idle[5:0] || full !== (m_tok == 20) || empty !== (m_tok == 0) ||
                idle_long !== (m_idle == 63)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: tokens=%0d grant=%b deny=%b ovf=%b idle=%0d expected tokens=%0d grant=%b deny=%b ovf=%b idle=%0d",
                             $time, tokens, grant, deny, overflow, idle_cnt, m_tok, m_grant, m_deny, m_ovf, m_idle);
            end
        end
    endtask

    task model_step;
        begin
            if (rst) begin
                m_tok = 0; m_pre = 0; m_idle = 0; m_need = 0; m_grant = 0; m_deny = 0; m_ovf = 0;
            end else begin
                m_need  = cost + 1;
                m_grant = req && (m_tok >= m_need);
                m_deny  = req && !m_grant;
                if (m_grant && m_tok == 20) n_full_grant = n_full_grant + 1;
                m_after = m_grant ? m_tok - (cost + 1) : m_tok;
                if (m_pre == 7 && m_after == 20) begin
                    m_ovf = 1; n_lost = n_lost + 1; m_tok = m_after;
                end else begin
                    m_ovf = 0; m_tok = (m_pre == 7) ? m_after + 1 : m_after;
                end
                m_pre  = (m_pre + 1) % 8;
                m_idle = m_grant ? 0 : (m_idle == 63 ? 63 : m_idle + 1);
            end
        end
    endtask

    task cycle;
        input r; input [1:0] c;
        begin
            @(negedge clk);
            check;
            req = r; cost = c;
            @(posedge clk);
            model_step;
        end
    endtask

    task idle;
        input integer k;
        integer j;
        begin
            for (j = 0; j < k; j = j + 1) cycle(1'b0, 2'd0);
        end
    endtask

    initial begin
        errors = 0; n_full_grant = 0; n_lost = 0;
        seed = 32'h51C0_7B2D;
        req = 0; cost = 0; rst = 1'b1;
        m_tok = 0; m_pre = 0; m_idle = 0; m_need = 0; m_grant = 0; m_deny = 0; m_ovf = 0;
        @(posedge clk); model_step;
        @(posedge clk); model_step;
        @(negedge clk); rst = 1'b0;
        @(posedge clk); model_step;
        cycle(1, 0); cycle(1, 3);                  // requests at empty
        idle(9); cycle(1, 1);                      // one token, asks for two: too few
        cycle(1, 0);                               // takes the last token exactly
        idle(200);                                 // long idle: saturated, bucket fills, refills lost
        cycle(1, 0);                               // granted at full, after a long idle
        while (m_tok != 20) cycle(0, 0);           // the bucket is refilled to 20
        while (m_pre != 7) cycle(0, 0);
        cycle(1, 0);                               // grant of one at full on a refill tick: stays full
        idle(8);
        cycle(1, 1);                               // cost two from a full bucket
        idle(30);
        while (m_pre != 7) cycle(0, 0);
        cycle(1, 2);                               // cost three from a full bucket
        idle(30);
        cycle(1, 3);                               // cost four from a full bucket
        while (m_tok >= 4) cycle(1, 3);            // drain
        while (m_tok > 0) cycle(1, m_tok - 1);     // the last tokens exactly
        cycle(1, 0);                               // request at empty
        for (n = 0; n < 6000; n = n + 1) begin
            if (urand(0) % 500 == 0) idle(40 + urand(0) % 150);
            cycle((urand(0) % 9) == 0, urand(0));
            if (urand(0) % 2500 == 0) begin
                @(negedge clk); check; rst = 1'b1; req = 0;
                @(posedge clk); model_step;
                @(negedge clk); check; rst = 1'b0;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_full_grant < 4 || n_lost < 10) begin
            $display("coverage: grants at full=%0d lost refills=%0d", n_full_grant, n_lost);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d grants at full, %0d refills lost)", n_full_grant, n_lost);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
