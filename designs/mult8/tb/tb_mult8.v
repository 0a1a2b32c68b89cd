`timescale 1ns/1ps
// Exhaustive self-checking testbench for mult8: all 65536 operand pairs.
module tb_mult8;
    reg  [7:0]  a, b;
    wire [15:0] p;

    mult8 dut (.a(a), .b(b), .p(p));

    integer ia, ib;
    integer errors;
    integer expv;

    initial begin
        errors = 0;
        for (ia = 0; ia < 256; ia = ia + 1) begin
            for (ib = 0; ib < 256; ib = ib + 1) begin
                a = ia[7:0];
                b = ib[7:0];
                #1;
                expv = ia * ib;
                if (p !== expv[15:0]) begin
                    errors = errors + 1;
                    if (errors <= 10)
                        $display("MISMATCH a=%0d b=%0d : p=%0d expected %0d", a, b, p, expv);
                end
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
