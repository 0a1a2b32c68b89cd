`timescale 1ns/1ps
// Exhaustive self-checking testbench for alu8: all 8 ops x 256 x 256 operands.
module tb_alu8;
    reg  [7:0] a, b;
    reg  [2:0] op;
    wire [7:0] y;
    wire       carry, zero;

    alu8 dut (.a(a), .b(b), .op(op), .y(y), .carry(carry), .zero(zero));

    integer ia, ib, iop;
    integer errors;
    integer r;
    reg [7:0] exp_y;
    reg       exp_c;
    reg       exp_z;

    initial begin
        errors = 0;
        for (iop = 0; iop < 8; iop = iop + 1) begin
            for (ia = 0; ia < 256; ia = ia + 1) begin
                for (ib = 0; ib < 256; ib = ib + 1) begin
                    a  = ia[7:0];
                    b  = ib[7:0];
                    op = iop[2:0];
                    #1;
                    // behavioural model, written with integer arithmetic
                    exp_c = 1'b0;
                    case (iop)
                        0: begin r = ia + ib;       exp_y = r % 256;     exp_c = (r > 255); end
                        1: begin r = ia - ib + 256; exp_y = r % 256;     exp_c = (ia < ib); end
                        2: exp_y = a & b;
                        3: exp_y = a | b;
                        4: exp_y = a ^ b;
                        5: exp_y = ~(a | b);
                        6: begin r = ia * 2;        exp_y = r % 256;     exp_c = (ia >= 128); end
                        default: begin r = ia / 2;  exp_y = r;           exp_c = (ia % 2 == 1); end
                    endcase
                    exp_z = (exp_y == 8'd0);
                    if (y !== exp_y || carry !== exp_c || zero !== exp_z) begin
                        errors = errors + 1;
                        if (errors <= 10)
                            $display("MISMATCH op=%0d a=%h b=%h : y=%h c=%b z=%b expected y=%h c=%b z=%b",
                                     iop, a, b, y, carry, zero, exp_y, exp_c, exp_z);
                    end
                end
            end
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
