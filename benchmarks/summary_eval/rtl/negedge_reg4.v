// 4-bit register clocked on the falling edge.
module negedge_reg4 (
    input  wire       clk,
    input  wire [3:0] d,
    output reg  [3:0] q
);
    always @(negedge clk)
        q <= d;
endmodule
