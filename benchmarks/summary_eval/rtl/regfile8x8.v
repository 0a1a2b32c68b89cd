// Eight 8-bit registers, two read ports, one write port; register 0 reads as zero.
module regfile8x8 (
    input  wire       clk,
    input  wire       we,
    input  wire [2:0] waddr,
    input  wire [7:0] wdata,
    input  wire [2:0] raddr_a,
    input  wire [2:0] raddr_b,
    output wire [7:0] rdata_a,
    output wire [7:0] rdata_b
);
    reg [7:0] regs [0:7];

    always @(posedge clk)
        if (we && waddr != 3'd0)
            regs[waddr] <= wdata;

    assign rdata_a = (raddr_a == 3'd0) ? 8'd0 : regs[raddr_a];
    assign rdata_b = (raddr_b == 3'd0) ? 8'd0 : regs[raddr_b];
endmodule
