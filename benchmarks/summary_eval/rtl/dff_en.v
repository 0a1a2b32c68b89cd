// 8-bit register with clock enable and no reset.
module dff_en (
    input  wire       clk,
    input  wire       enable,
    input  wire [7:0] d,
    output reg  [7:0] q
);
    always @(posedge clk)
        if (enable)
            q <= d;
endmodule
