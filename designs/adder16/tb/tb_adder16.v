`timescale 1ns/1ps
// Self-checking testbench for adder16: directed carry-chain cases plus
// 4000 random vectors, compared against a 17-bit behavioural sum.
module tb_adder16;
    reg  [15:0] a, b;
    reg         cin;
    wire [15:0] sum;
    wire        cout;

    adder16 dut (.a(a), .b(b), .cin(cin), .sum(sum), .cout(cout));

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
    integer n, k, c;
    reg [16:0] expv;

    task check;
        begin
            #1;
            expv = {1'b0, a} + {1'b0, b} + {16'd0, cin};
            if (sum !== expv[15:0] || cout !== expv[16]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH a=%h b=%h cin=%b : sum=%h cout=%b expected sum=%h cout=%b",
                             a, b, cin, sum, cout, expv[15:0], expv[16]);
            end
        end
    endtask

    initial begin
        errors = 0;
        seed   = 32'h1234_5678;
        // directed: carry chains of every length, all-ones, zeros
        for (c = 0; c < 2; c = c + 1) begin
            for (k = 0; k <= 16; k = k + 1) begin
                cin = c[0];
                a = (17'd1 << k) - 17'd1;  b = 16'd1;            check;
                a = 16'hFFFF;              b = 16'd1 << (k % 16); check;
                a = 16'd1 << (k % 16);     b = 16'd1 << (k % 16); check;
                a = 16'hFFFF >> k;         b = 16'hFFFF >> (16 - k); check;
            end
            cin = c[0];
            a = 16'h0000; b = 16'h0000; check;
            a = 16'hFFFF; b = 16'hFFFF; check;
            a = 16'hFFFF; b = 16'h0000; check;
            a = 16'h8000; b = 16'h8000; check;
            a = 16'h5555; b = 16'hAAAA; check;
        end
        // exhaustive over the low block boundary region with random upper bits
        for (n = 0; n < 512; n = n + 1) begin
            a = urand(0) ; a[7:0] = n[7:0];
            b = urand(0) ; b[7:0] = ~n[7:0];
            cin = n[8];
            check;
        end
        // random
        for (n = 0; n < 4000; n = n + 1) begin
            a   = urand(0);
            b   = urand(0);
            cin = urand(0);
            check;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
