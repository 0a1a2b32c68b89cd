// 3-to-8 one-hot decoder with an active-high enable.
module decoder3to8 (
    input  wire       en,
    input  wire [2:0] a,
    output wire [7:0] y
);
    assign y = en ? (8'b0000_0001 << a) : 8'b0000_0000;
endmodule
