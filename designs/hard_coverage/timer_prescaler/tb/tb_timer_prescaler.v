`timescale 1ns/1ps
// Self-checking testbench for timer_prescaler: directed one-shot and periodic matches,
// a match every tick, slow prescalers, overflow, matches at large compare values, a
// long run, mode switches, reloads and compare writes while running, restarts and
// stops, then 30000 cycles of biased random traffic with rare resets. A model is
// stepped at each rising edge; count, running, match, done and ovf are checked every
// cycle.
module tb_timer_prescaler;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         wr_en, start, stop;
    reg  [1:0]  wr_addr;
    reg  [15:0] wr_data;
    wire [15:0] count;
    wire        running, match, done, ovf;

    timer_prescaler dut (.clk(clk), .rst_n(rst_n), .wr_en(wr_en), .wr_addr(wr_addr), .wr_data(wr_data),
                         .start(start), .stop(stop), .count(count), .running(running), .match(match),
                         .done(done), .ovf(ovf));

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

    integer m_count, m_pcnt, m_pre, m_cmp, m_rel;
    reg     m_run, m_match, m_done, m_ovf, m_per;
    integer errors, n, r, n_match_os, n_match_per, n_ovf, n_big;

    task check;
        begin
            if (count !== m_count[15:0] || running !== m_run || match !== m_match ||
                done !== m_done || ovf !== m_ovf) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: count=%h running=%b match=%b done=%b ovf=%b expected count=%h running=%b match=%b done=%b ovf=%b",
                             $time, count, running, match, done, ovf, m_count, m_run, m_match, m_done, m_ovf);
            end
        end
    endtask

    task model_reset;
        begin
            m_count = 0; m_pcnt = 0; m_pre = 0; m_cmp = 16'hFFFF; m_rel = 0;
            m_run = 0; m_match = 0; m_done = 0; m_ovf = 0; m_per = 0;
        end
    endtask

    task model_step;
        integer old_pre, old_cmp, old_rel;
        reg     old_per;
        begin
            old_pre = m_pre; old_cmp = m_cmp; old_rel = m_rel; old_per = m_per;
            if (wr_en) begin
                if (wr_addr == 0) m_pre = wr_data[7:0];
                else if (wr_addr == 1) m_cmp = wr_data;
                else if (wr_addr == 2) m_rel = wr_data;
                else m_per = wr_data[0];
            end
            m_match = 0;
            if (stop) m_run = 0;
            else if (start) begin
                m_run = 1; m_count = old_rel; m_pcnt = 0; m_done = 0; m_ovf = 0;
            end else if (m_run) begin
                if (m_pcnt >= old_pre) begin
                    m_pcnt = 0;
                    if (m_count == old_cmp) begin
                        m_match = 1;
                        if (old_cmp >= 16'hF000) n_big = n_big + 1;
                        if (old_per) begin m_count = old_rel; n_match_per = n_match_per + 1; end
                        else begin m_run = 0; m_done = 1; n_match_os = n_match_os + 1; end
                    end else if (m_count == 16'hFFFF) begin
                        m_ovf = 1; m_count = old_rel; n_ovf = n_ovf + 1;
                    end else
                        m_count = m_count + 1;
                end else
                    m_pcnt = m_pcnt + 1;
            end
        end
    endtask

    task cycle;
        input w; input [1:0] a; input [15:0] d; input st; input sp;
        begin
            @(negedge clk);
            check;
            wr_en = w; wr_addr = a; wr_data = d; start = st; stop = sp;
            @(posedge clk);
            model_step;
        end
    endtask

    task wr;
        input [1:0] a; input [15:0] d;
        begin
            cycle(1'b1, a, d, 1'b0, 1'b0);
        end
    endtask

    task idle;
        input integer c;
        integer j;
        begin
            for (j = 0; j < c; j = j + 1) cycle(1'b0, 2'd0, 16'd0, 1'b0, 1'b0);
        end
    endtask

    // a random write value: small, near the top, near the bottom or anything
    function [15:0] rvalue;
        input dummy;
        integer k;
        begin
            k = urand(0) % 4;
            if (k == 0) rvalue = urand(0) % 40;
            else if (k == 1) rvalue = 16'hFFFF - urand(0) % 40;
            else if (k == 2) rvalue = 16'hF000 + urand(0) % 64;
            else rvalue = urand(0);
        end
    endfunction

    initial begin
        errors = 0; n_match_os = 0; n_match_per = 0; n_ovf = 0; n_big = 0;
        seed = 32'h71E5_CA1E;
        wr_en = 0; wr_addr = 0; wr_data = 0; start = 0; stop = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        // one-shot, prescale 0
        wr(1, 16'd10); wr(2, 16'd5); cycle(0, 0, 0, 1, 0); idle(10);
        // periodic with compare = reload: a match every tick
        wr(3, 16'd1); wr(1, 16'd7); wr(2, 16'd7); cycle(0, 0, 0, 1, 0); idle(5);
        // prescale 3, periodic 0..8
        wr(0, 16'd3); wr(2, 16'd0); wr(1, 16'd8); cycle(0, 0, 0, 1, 0); idle(80);
        // mode switch while running: one-shot stops at the next match
        wr(3, 16'd0); idle(40); cycle(0, 0, 0, 0, 1);
        // overflow: reload above compare
        wr(0, 16'd0); wr(2, 16'hFFF0); wr(1, 16'd3); wr(3, 16'd1); cycle(0, 0, 0, 1, 0); idle(30);
        cycle(0, 0, 0, 0, 1);
        // match at a large compare, periodic then one-shot
        wr(2, 16'hF7F8); wr(1, 16'hF800); cycle(0, 0, 0, 1, 0); idle(20); wr(3, 16'd0); idle(12);
        // a long run: 600 ticks
        wr(2, 16'd0); wr(1, 16'd600); cycle(0, 0, 0, 1, 0); idle(620);
        // a slow prescaler
        wr(0, 16'd200); wr(1, 16'd2); cycle(0, 0, 0, 1, 0); idle(700);
        // compare written below count while running: runs to FFFF and overflows
        wr(0, 16'd0); wr(2, 16'hFFE0); wr(1, 16'hFFFF); cycle(0, 0, 0, 1, 0); idle(10); wr(1, 16'hFFE2); idle(40);
        // restart while running, start and stop together
        cycle(0, 0, 0, 1, 0); idle(3); cycle(0, 0, 0, 1, 0); idle(3); cycle(0, 0, 0, 1, 1); idle(3);
        // random traffic
        for (n = 0; n < 30000; n = n + 1) begin
            r = urand(0) % 1000;
            cycle(r < 40, urand(0), (r % 3 == 0) ? urand(0) % 4 : rvalue(0), r >= 40 && r < 50, r >= 50 && r < 54);
            if (urand(0) % 5000 == 0) begin
                @(negedge clk); check; wr_en = 0; start = 0; stop = 0;
                #2 rst_n = 1'b0;
                #1 model_reset;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_match_os < 20 || n_match_per < 20 || n_ovf < 5 || n_big < 3) begin
            $display("coverage: one-shot=%0d periodic=%0d overflows=%0d large=%0d", n_match_os, n_match_per, n_ovf, n_big);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d one-shot and %0d periodic matches, %0d overflows, %0d at large compare)",
                                  n_match_os, n_match_per, n_ovf, n_big);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
