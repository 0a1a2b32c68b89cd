// mult8: 8x8 unsigned combinational multiplier (shift-and-add of partial products).
module mult8 (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    // partial product rows, each already shifted into place
    wire [15:0] pp [0:7];
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_pp
            wire [15:0] row = {8'd0, a & {8{b[i]}}};
            assign pp[i] = row << i;
        end
    endgenerate

    // balanced adder tree
    wire [15:0] s01 = pp[0] + pp[1];
    wire [15:0] s23 = pp[2] + pp[3];
    wire [15:0] s45 = pp[4] + pp[5];
    wire [15:0] s67 = pp[6] + pp[7];
    wire [15:0] s03 = s01 + s23;
    wire [15:0] s47 = s45 + s67;
    assign p = s03 + s47;
endmodule
