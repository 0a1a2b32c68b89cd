`timescale 1ns/1ps
// Exhaustive self-checking testbench for decoder3to8 (all 16 input combinations).
module tb_decoder3to8;
    reg  [2:0] a;
    reg        en;
    wire [7:0] y;

    decoder3to8 dut (.a(a), .en(en), .y(y));

    integer ia, ie, k;
    integer errors;
    reg [7:0] exp_y;

    initial begin
        errors = 0;
        for (ie = 0; ie < 2; ie = ie + 1) begin
            for (ia = 0; ia < 8; ia = ia + 1) begin
                a  = ia[2:0];
                en = ie[0];
                #1;
                for (k = 0; k < 8; k = k + 1)
                    exp_y[k] = (ie == 1) && (k == ia);
                if (y !== exp_y) begin
                    errors = errors + 1;
                    $display("MISMATCH en=%b a=%0d : y=%b expected %b", en, a, y, exp_y);
                end
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
