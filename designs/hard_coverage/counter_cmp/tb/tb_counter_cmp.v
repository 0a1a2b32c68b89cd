`timescale 1ns/1ps
// Self-checking testbench for counter_cmp: directed loads just below the match
// value and the top of the range (count through match, wrap with ovf, clear),
// then 6000 cycles of random control with loads biased near 500000 and FFFFF.
// A model counter is stepped at each rising edge; count, match, past and ovf
// are checked every cycle.
module tb_counter_cmp;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         clr, load, en;
    reg  [19:0] load_val;
    wire [19:0] count;
    wire        match, past, ovf;

    counter_cmp dut (.clk(clk), .rst_n(rst_n), .clr(clr), .load(load), .load_val(load_val), .en(en),
                     .count(count), .match(match), .past(past), .ovf(ovf));

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

    reg [19:0] m_count;
    reg        m_ovf;
    integer errors, n, r, n_match, n_wrap;

    task check;
        begin
            if (count !== m_count || match !== (m_count == 20'd500000) || past !== (m_count > 20'd500000) ||
                ovf !== m_ovf) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: count=%0d match=%b past=%b ovf=%b expected count=%0d ovf=%b",
                             $time, count, match, past, ovf, m_count, m_ovf);
            end
            if (m_count == 20'd500000) n_match = n_match + 1;
        end
    endtask

    task model_step;
        begin
            if (clr) begin m_count = 0; m_ovf = 0; end
            else if (load) m_count = load_val;
            else if (en) begin
                if (m_count == 20'hFFFFF) begin m_ovf = 1; n_wrap = n_wrap + 1; end
                m_count = m_count + 1;
            end
        end
    endtask

    task cycle;
        input c; input l; input [19:0] v; input e;
        begin
            @(negedge clk);
            check;
            clr = c; load = l; load_val = v; en = e;
            @(posedge clk);
            model_step;
        end
    endtask

    integer i;
    initial begin
        errors = 0; n_match = 0; n_wrap = 0;
        seed = 32'hC0C0_0500;
        clr = 0; load = 0; en = 0; load_val = 0;
        m_count = 0; m_ovf = 0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        for (i = 0; i < 5; i = i + 1) cycle(0, 0, 0, 1);
        cycle(0, 1, 20'd499995, 0);
        for (i = 0; i < 8; i = i + 1) cycle(0, 0, 0, i != 5);  // through match, one pause on it
        cycle(0, 1, 20'hFFFFD, 1);                              // load wins over en
        for (i = 0; i < 5; i = i + 1) cycle(0, 0, 0, 1);       // wrap, ovf
        cycle(0, 1, 20'd500000, 0); cycle(0, 0, 0, 0);          // ovf stays, load onto match
        cycle(1, 1, 20'd7, 1);                                   // clr wins
        for (n = 0; n < 6000; n = n + 1) begin
            r = urand(0) % 100;
            cycle(r < 2, (r >= 2 && r < 6),
                  (urand(0) % 2) ? 20'd500000 - (urand(0) % 24) : 20'hFFFFF - (urand(0) % 24),
                  (urand(0) % 100) < 85);
            if (urand(0) % 1500 == 0) begin
                @(negedge clk); check; clr = 0; load = 0; en = 0;
                #2 rst_n = 1'b0;
                #1 m_count = 0; m_ovf = 0;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_match < 20 || n_wrap < 5) begin
            $display("coverage: match=%0d wrap=%0d", n_match, n_wrap);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d match cycles, %0d wraps)", n_match, n_wrap);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
