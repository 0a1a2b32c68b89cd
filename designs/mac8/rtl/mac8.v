// mac8: 8x8 unsigned multiply-accumulate into a 20-bit accumulator.
// Synchronous active-high reset. Per rising clock edge, in priority order:
//   rst : acc <= 0
//   clr : acc <= 0            (start a new accumulation)
//   en  : acc <= acc + a*b    (wraps modulo 2^20)
//   else: acc holds
module mac8 (
    input  wire        clk,
    input  wire        rst,
    input  wire        en,
    input  wire        clr,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg  [19:0] acc
);
    wire [15:0] prod = a * b;

    always @(posedge clk) begin
        if (rst)
            acc <= 20'd0;
        else if (clr)
            acc <= 20'd0;
        else if (en)
            acc <= acc + {4'd0, prod};
    end
endmodule
