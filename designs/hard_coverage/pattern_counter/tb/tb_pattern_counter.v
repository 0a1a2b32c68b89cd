`timescale 1ns/1ps
// Self-checking testbench for pattern_counter: directed overlapping and broken
// patterns, gaps of invalid cycles inside a pattern, counting to saturation and past
// it, clears (also with a hit in the same cycle), the pattern right after a reset,
// then 30000 cycles of random symbols biased toward C and A with rare clears and
// resets. The model keeps the last three valid symbols; state, count, hit, early and
// saturated are checked every cycle.
module tb_pattern_counter;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        valid, clr;
    reg  [3:0] sym;
    wire [1:0] state;
    wire [3:0] count;
    wire       hit, early, saturated;

    pattern_counter dut (.clk(clk), .rst_n(rst_n), .valid(valid), .sym(sym), .clr(clr),
                         .state(state), .count(count), .hit(hit), .early(early), .saturated(saturated));

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

    // the last three valid symbols (h0 newest); nh: how many since reset (up to 3)
    reg  [3:0] h0, h1, h2;
    integer    nh, m_count, m_state;
    reg        m_hit, m_early;
    integer    errors, n, r, i, n_hits, n_sat, n_early;

    task check;
        begin
            m_state = (nh >= 2 && h1 == 4'hC && h0 == 4'hA) ? 2 : ((nh >= 1 && h0 == 4'hC) ? 1 : 0);
            if (state !== m_state[1:0] || count !== m_count[3:0] || hit !== m_hit || early !== m_early ||
                saturated !== (m_count == 15)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: state=%0d count=%0d hit=%b early=%b expected state=%0d count=%0d hit=%b early=%b",
                             $time, state, count, hit, early, m_state, m_count, m_hit, m_early);
            end
        end
    endtask

    task model_reset;
        begin
            h0 = 0; h1 = 0; h2 = 0; nh = 0; m_count = 0; m_hit = 0; m_early = 0;
        end
    endtask

    task model_step;
        begin
            m_hit = 0; m_early = 0;
            if (valid) begin
                h2 = h1; h1 = h0; h0 = sym;
                if (nh < 3) nh = nh + 1;
                m_hit = (nh == 3 && h2 == 4'hC && h1 == 4'hA && h0 == 4'hC);
                if (m_hit) n_hits = n_hits + 1;
            end
            m_early = m_hit && early_window;
            if (m_early) n_early = n_early + 1;
            if (clr) m_count = 0;
            else if (m_hit && m_count < 15) m_count = m_count + 1;
            else if (m_hit) n_sat = n_sat + 1;
        end
    endtask

    // early_window: this cycle's symbol is the third valid one since reset (nvalid
    // counts them), the only one that can end a pattern made of the first three
    reg     early_window;
    integer nvalid;
    task cycle;
        input v; input [3:0] s; input c;
        begin
            @(negedge clk);
            check;
            valid = v; sym = s; clr = c;
            @(posedge clk);
            if (v) nvalid = nvalid + 1;
            early_window = (nvalid == 3);
            model_step;
        end
    endtask

    task do_reset;
        begin
            @(negedge clk); check; valid = 0; clr = 0;
            #2 rst_n = 1'b0;
            #1 model_reset; nvalid = 0;
            check;
            #1 rst_n = 1'b1;
            @(posedge clk); early_window = 0; model_step;
        end
    endtask

    initial begin
        errors = 0; n_hits = 0; n_sat = 0; n_early = 0; nvalid = 0; early_window = 0;
        seed = 32'h0CAC_2024;
        valid = 0; sym = 0; clr = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(1, 4'hC, 0); cycle(1, 4'hA, 0); cycle(1, 4'hC, 0);          // the pattern at reset release
        cycle(1, 4'hA, 0); cycle(1, 4'hC, 0);                              // overlapping
        cycle(1, 4'hC, 0); cycle(0, 4'hA, 0); cycle(1, 4'hA, 0); cycle(0, 4'h0, 0); cycle(1, 4'hC, 0);  // gaps
        cycle(1, 4'hA, 0); cycle(1, 4'hA, 0); cycle(1, 4'hC, 0);          // broken
        cycle(1, 4'hC, 0); cycle(1, 4'hC, 0); cycle(1, 4'hA, 0); cycle(1, 4'hC, 1);  // C C A C, cleared with the hit
        for (i = 0; i < 40; i = i + 1) cycle(1, (i % 2) ? 4'hA : 4'hC, 0); // to saturation and past it
        cycle(0, 4'h0, 1);
        do_reset;
        cycle(0, 4'hC, 0); cycle(1, 4'hC, 0); cycle(0, 4'hA, 1); cycle(1, 4'hA, 0); cycle(1, 4'hC, 0);  // early with gaps
        for (n = 0; n < 30000; n = n + 1) begin
            r = urand(0) % 100;
            cycle((urand(0) % 100) < 85, r < 45 ? 4'hC : (r < 85 ? 4'hA : urand(0)), (urand(0) % 200) == 0);
            if (urand(0) % 700 == 0) do_reset;
        end
        @(negedge clk);
        check;
        if (n_hits < 1000 || n_sat < 50 || n_early < 5) begin
            $display("coverage: hits=%0d saturated hits=%0d early=%0d", n_hits, n_sat, n_early);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d hits, %0d while saturated, %0d at reset release)", n_hits, n_sat, n_early);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
