// 16 x 4 RAM: synchronous write, asynchronous (combinational) read.
module ram16x4_async (
    input  wire       clk,
    input  wire       we,
    input  wire [3:0] addr,
    input  wire [3:0] d,
    output wire [3:0] q
);
    reg [3:0] cells [0:15];

    always @(posedge clk)
        if (we)
            cells[addr] <= d;

    assign q = cells[addr];
endmodule
