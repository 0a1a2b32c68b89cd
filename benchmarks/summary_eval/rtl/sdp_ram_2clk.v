// Simple dual-port RAM with independent write and read clocks.
module sdp_ram_2clk #(
    parameter ADDR_WIDTH = 5,
    parameter DATA_WIDTH = 16
) (
    input  wire                  wclk,
    input  wire                  wen,
    input  wire [ADDR_WIDTH-1:0] waddr,
    input  wire [DATA_WIDTH-1:0] wdata,
    input  wire                  rclk,
    input  wire                  ren,
    input  wire [ADDR_WIDTH-1:0] raddr,
    output reg  [DATA_WIDTH-1:0] rdata
);
    reg [DATA_WIDTH-1:0] mem [0:(1<<ADDR_WIDTH)-1];

    always @(posedge wclk)
        if (wen)
            mem[waddr] <= wdata;

    always @(posedge rclk)
        if (ren)
            rdata <= mem[raddr];
endmodule
