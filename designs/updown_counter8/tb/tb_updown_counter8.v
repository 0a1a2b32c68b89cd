`timescale 1ns/1ps
// Self-checking testbench for updown_counter8: 5000 random cycles with long
// runs in each direction, random loads (often near the wrap points), random
// enable and asynchronous resets; q and tc are checked against an integer model.
module tb_updown_counter8;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        load, en, up;
    reg  [7:0] d;
    wire [7:0] q;
    wire       tc;

    updown_counter8 dut (.clk(clk), .rst_n(rst_n), .load(load), .d(d), .en(en), .up(up),
                         .q(q), .tc(tc));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
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

    integer errors;
    integer n, r;
    integer model;          // 0 .. 255
    integer wraps_up, wraps_down, n_tc;
    reg     exp_tc;

    task check;
        begin
            exp_tc = en && ((up && model == 255) || (!up && model == 0));
            if (q !== model[7:0] || tc !== exp_tc) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: q=%0d tc=%b expected q=%0d tc=%b (en=%b up=%b)",
                             $time, q, tc, model, exp_tc, en, up);
            end
            if (exp_tc) n_tc = n_tc + 1;
        end
    endtask

    initial begin
        errors = 0; wraps_up = 0; wraps_down = 0; n_tc = 0;
        seed  = 32'hC0DE_0008;
        load = 1'b0; en = 1'b0; up = 1'b1; d = 8'd0;
        rst_n = 1'b0;
        model = 0;
        #12 rst_n = 1'b1;
        for (n = 0; n < 5000; n = n + 1) begin
            @(negedge clk);
            // new stimulus
            r = urand(0) % 800;
            if (r == 0) begin
                #1 rst_n = 1'b0;
                #1 model = 0;
                if (q !== 8'd0) begin       // cleared immediately (async)
                    errors = errors + 1;
                    $display("MISMATCH t=%0t: q=%0d not cleared by rst_n", $time, q);
                end
                #1 rst_n = 1'b1;            // released at negedge+3, before the check at +4
            end
            if (n % 97 == 0) up = urand(0);
            r    = urand(0) % 100;
            load = (r < 3);
            r    = urand(0) % 100;
            en   = (r < 90);
            r    = urand(0) % 4;
            d    = urand(0);
            if (r == 0) d = 8'hF8 | d[2:0];
            if (r == 1) d = 8'h07 & d;
            #1;
            check;          // q (and tc, which depends on the new en/up) before the edge
            @(posedge clk);
            if (load) model = d;
            else if (en) begin
                if (up) begin
                    if (model == 255) begin model = 0; wraps_up = wraps_up + 1; end
                    else model = model + 1;
                end else begin
                    if (model == 0) begin model = 255; wraps_down = wraps_down + 1; end
                    else model = model - 1;
                end
            end
        end
        @(negedge clk);
        #1 check;
        if (wraps_up < 3 || wraps_down < 3) begin
            $display("coverage: wraps up=%0d down=%0d", wraps_up, wraps_down);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
