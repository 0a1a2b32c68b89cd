// Rotate-left barrel shifter.
module barrel_rotl8 (
    input  wire [7:0] din,
    input  wire [2:0] amt,
    output wire [7:0] dout
);
    wire [15:0] doubled = {din, din} << amt;

    assign dout = doubled[15:8];
endmodule
