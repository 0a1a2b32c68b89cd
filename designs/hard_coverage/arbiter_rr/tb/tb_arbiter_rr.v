`timescale 1ns/1ps
// Self-checking testbench for arbiter_rr: directed lock holds (long enough to
// starve the others), full-load rotation, then 3000 cycles of random requests
// and lock with varying densities, plus synchronous resets. The model scans
// the requesters in round-robin order after the last one granted; grant,
// starve and max_wait are checked every cycle.
module tb_arbiter_rr;
    reg        clk = 1'b0;
    reg        rst;
    reg  [3:0] req;
    reg        lock;
    wire [3:0] grant, starve, max_wait;

    arbiter_rr dut (.clk(clk), .rst(rst), .req(req), .lock(lock), .grant(grant),
                    .starve(starve), .max_wait(max_wait));

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

    reg [3:0] m_grant, e_starve, e_max;
    integer   m_last, i, j, n, errors, starved_seen, dens;
    integer   m_wait [0:3];

    task check;
        begin
            e_starve = 0; e_max = 0;
            for (i = 0; i < 4; i = i + 1) begin
                if (m_wait[i] >= 12) e_starve[i] = 1'b1;
                if (m_wait[i] > e_max) e_max = m_wait[i];
            end
            if (grant !== m_grant || starve !== e_starve || max_wait !== e_max) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: grant=%b starve=%b max=%0d; expected %b %b %0d",
                             $time, grant, starve, max_wait, m_grant, e_starve, e_max);
            end
            if (e_starve != 0) starved_seen = starved_seen + 1;
        end
    endtask

    task step;
        input [3:0] r; input l; input rs;
        reg [3:0] g;
        begin
            @(negedge clk);
            check;
            req = r; lock = l; rst = rs;
            @(posedge clk);
            if (rs) begin
                m_grant = 0; m_last = 3;
                for (i = 0; i < 4; i = i + 1) m_wait[i] = 0;
            end else begin
                if (l && (m_grant & r) != 0) g = m_grant;
                else begin
                    g = 0;
                    for (j = 4; j >= 1; j = j - 1)
                        if (r[(m_last + j) % 4]) g = 4'd1 << ((m_last + j) % 4);
                    for (i = 0; i < 4; i = i + 1) if (g[i]) m_last = i;
                end
                m_grant = g;
                for (i = 0; i < 4; i = i + 1)
                    m_wait[i] = (r[i] && !g[i]) ? ((m_wait[i] < 15) ? m_wait[i] + 1 : 15) : 0;
            end
        end
    endtask

    initial begin
        errors = 0; starved_seen = 0;
        seed = 32'hA4B1_7E42;
        req = 0; lock = 0; rst = 1; m_grant = 0; m_last = 3;
        for (i = 0; i < 4; i = i + 1) m_wait[i] = 0;
        step(0, 0, 1); step(0, 0, 1);
        for (n = 0; n < 16; n = n + 1) step(4'b1111, 0, 0);   // full-load rotation
        for (n = 0; n < 20; n = n + 1) step(4'b1111, 1, 0);   // lock: the others starve
        for (n = 0; n < 6; n = n + 1) step(4'b1010, 0, 0);
        for (n = 0; n < 3000; n = n + 1) begin
            dens = 20 + ((n / 250) % 4) * 20;
            step({(urand(0) % 100) < dens, (urand(0) % 100) < dens, (urand(0) % 100) < dens,
                  (urand(0) % 100) < dens},
                 (n / 500) % 2 ? (urand(0) % 100) < 90 : (urand(0) % 100) < 10,
                 (urand(0) % 600) == 0);
        end
        @(negedge clk); check;
        if (starved_seen < 10) begin
            $display("coverage: only %0d starved cycles", starved_seen);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
