`timescale 1ns/1ps
// Self-checking testbench for tick_div10: 4000 cycles of random enable (long runs on and
// off) and rare asynchronous resets; tick is checked every cycle against an integer model.
module tb_tick_div10;
    reg  clk = 1'b0;
    reg  rst_n;
    reg  en;
    wire tick;

    tick_div10 dut (.clk(clk), .rst_n(rst_n), .en(en), .tick(tick));

    always #5 clk = ~clk;

    reg [31:0] seed;  // xorshift32: the same stimulus on every simulator
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    integer errors, n, ticks, model;

    initial begin
        errors = 0; ticks = 0; model = 0;
        seed = 32'h7E57_0010;
        en = 1'b0;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        for (n = 0; n < 4000; n = n + 1) begin
            @(negedge clk);
            if (urand(0) % 16 == 0) en = ~en;
            if (urand(0) % 700 == 0) begin
                #1 rst_n = 1'b0;
                model = 0;
                #1 rst_n = 1'b1;
            end
            #2;
            if (tick !== (en && model == 9)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: tick=%b expected %b (en=%b count=%0d)", $time, tick,
                             en && model == 9, en, model);
            end
            if (tick) ticks = ticks + 1;
            @(posedge clk);
            if (en) model = (model == 9) ? 0 : model + 1;
        end
        if (ticks < 100) begin
            errors = errors + 1;
            $display("MISMATCH: only %0d ticks in 4000 cycles", ticks);
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
