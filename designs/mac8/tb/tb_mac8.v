`timescale 1ns/1ps
// Self-checking testbench for mac8: 3000 random cycles (random operands,
// enable, clear and reset) against an integer behavioural model.
module tb_mac8;
    reg         clk = 1'b0;
    reg         rst, en, clr;
    reg  [7:0]  a, b;
    wire [19:0] acc;

    mac8 dut (.clk(clk), .rst(rst), .en(en), .clr(clr), .a(a), .b(b), .acc(acc));

    always #5 clk = ~clk;

    // xorshift32 PRNG with a fixed seed: identical stimulus on every simulator
    // (Verilator 5.006's $random(seed) degenerates after a few hundred calls).
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
    integer model;       // behavioural accumulator, kept in 0 .. 2^20-1
    integer wraps;

    initial begin
        errors = 0;
        wraps  = 0;
        seed   = 32'hC0FF_EE01;
        rst = 1'b1; en = 1'b0; clr = 1'b0; a = 8'd0; b = 8'd0;
        model = 0;
        @(posedge clk);
        for (n = 0; n < 3000; n = n + 1) begin
            @(negedge clk);
            if (acc !== model[19:0]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH cycle %0d: acc=%h expected %h", n, acc, model[19:0]);
            end
            // new stimulus
            r   = urand(0) % 100;
            rst = (r < 2);
            r   = urand(0) % 100;
            clr = (r < 4);
            r   = urand(0) % 100;
            en  = (r < 85);
            a   = urand(0);
            b   = urand(0);
            if (n % 200 < 20) begin   // bursts of maximal products
                a = 8'hFF; b = 8'hFF - n[2:0]; en = 1'b1; clr = 1'b0; rst = 1'b0;
            end
            @(posedge clk);
            // model update, on the same edge as the DUT
            if (rst)      model = 0;
            else if (clr) model = 0;
            else if (en) begin
                model = model + a * b;
                if (model >= 1048576) begin
                    model = model - 1048576;
                    wraps = wraps + 1;
                end
            end
        end
        @(negedge clk);
        if (acc !== model[19:0]) errors = errors + 1;
        if (wraps == 0) begin
            $display("coverage: accumulator never wrapped");
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
