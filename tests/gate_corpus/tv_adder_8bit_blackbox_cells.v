// tool-view: full adders in (* blackbox *) modules named like library cells; simulators run the Verilog bodies, Yosys keeps one NAND3/AOI21 cell each
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire [8:0] c;
    assign c[0] = cin;
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_fa
            NAND3_X1 u_s (.A(a[i]), .B(b[i]), .C(c[i]), .Y(sum[i]));
            AOI21_X1 u_c (.A(a[i]), .B(b[i]), .C(c[i]), .Y(c[i+1]));
        end
    endgenerate
    assign cout = c[8];
endmodule

(* blackbox *)
module NAND3_X1 (input A, input B, input C, output Y);
    assign Y = A ^ B ^ C;
endmodule

(* blackbox *)
module AOI21_X1 (input A, input B, input C, output Y);
    assign Y = (A & B) | (C & (A ^ B));
endmodule
