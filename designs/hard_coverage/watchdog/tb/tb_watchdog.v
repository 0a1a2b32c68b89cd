`timescale 1ns/1ps
// Self-checking testbench for watchdog: directed bites at the minimum, default and
// maximum limits, kicks inside and outside the warning window, refused writes, a
// limit written below the running count, writes during the window and during a
// bite, then 8000 cycles of random traffic with rare kicks and writes. A model is
// stepped at each rising edge; count, bite, warning and cfg_err are checked every
// cycle.
module tb_watchdog;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        kick, wr_en;
    reg  [7:0] wr_data;
    wire [7:0] count;
    wire       bite, warning, cfg_err;

    watchdog dut (.clk(clk), .rst_n(rst_n), .kick(kick), .wr_en(wr_en), .wr_data(wr_data),
                  .count(count), .bite(bite), .warning(warning), .cfg_err(cfg_err));

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

    integer m_count, m_limit;
    reg     m_bite, m_err;
    integer errors, n, i, n_bite, n_kick_warn;

    task check;
        begin
            if (count !== m_count[7:0] || bite !== m_bite || cfg_err !== m_err ||
                warning !== (!m_bite && m_count >= m_limit - 16)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: count=%0d bite=%b warning=%b cfg_err=%b expected count=%0d bite=%b limit=%0d",
                             $time, count, bite, warning, cfg_err, m_count, m_bite, m_limit);
            end
        end
    endtask

    task model_step;
        begin
            if (m_bite) begin
                if (kick) begin m_bite = 0; m_count = 0; end
            end else if (kick) begin
                if (m_count >= m_limit - 16) n_kick_warn = n_kick_warn + 1;
                m_count = 0;
            end else if (m_count >= m_limit) begin
                m_bite = 1; n_bite = n_bite + 1;
            end else
                m_count = m_count + 1;
            if (wr_en) begin
                if (wr_data >= 32) m_limit = wr_data;
                else m_err = 1;
            end
        end
    endtask

    task cycle;
        input k; input w; input [7:0] d;
        begin
            @(negedge clk);
            check;
            kick = k; wr_en = w; wr_data = d;
            @(posedge clk);
            model_step;
        end
    endtask

    task wait_cycles;
        input integer c;
        integer j;
        begin
            for (j = 0; j < c; j = j + 1) cycle(1'b0, 1'b0, 8'd0);
        end
    endtask

    initial begin
        errors = 0; n_bite = 0; n_kick_warn = 0;
        seed = 32'h3A7C_D06F;
        kick = 0; wr_en = 0; wr_data = 0;
        m_count = 0; m_limit = 100; m_bite = 0; m_err = 0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        @(posedge clk); model_step;                       // counting starts right after the reset
        wait_cycles(90); cycle(1, 0, 0);                  // kick in the window at the default limit
        wait_cycles(105); cycle(0, 1, 8'd40);              // bite at 100, write while bitten
        wait_cycles(3); cycle(1, 0, 0);                    // kick clears the bite
        wait_cycles(45); cycle(1, 0, 0);                   // bite at 40, held, kicked
        cycle(0, 1, 8'd31); cycle(0, 1, 8'd32);            // refused (cfg_err), accepted minimum
        wait_cycles(20); cycle(0, 1, 8'd200);              // write inside the window
        wait_cycles(120); cycle(0, 1, 8'd50);              // limit below count: bite next edge
        wait_cycles(2); cycle(1, 0, 0);
        cycle(0, 1, 8'd255); wait_cycles(270); cycle(1, 0, 0);
        cycle(0, 1, 8'd33);
        for (n = 0; n < 8000; n = n + 1) begin
            cycle((urand(0) % ((!m_bite && m_count >= m_limit - 16) ? 8 : 60)) == 0, (urand(0) % 100) == 0, (urand(0) % 8 == 0) ? urand(0) % 40 : urand(0) % 120);
            if (urand(0) % 3000 == 0) begin
                @(negedge clk); check; kick = 0; wr_en = 0;
                #2 rst_n = 1'b0;
                #1 m_count = 0; m_limit = 100; m_bite = 0; m_err = 0;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_bite < 10 || n_kick_warn < 10) begin
            $display("coverage: bites=%0d kicks in window=%0d", n_bite, n_kick_warn);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d bites, %0d kicks in the window)", n_bite, n_kick_warn);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
