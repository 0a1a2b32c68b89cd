// Single-port RAM with chip enable; write-first (new data appears on dout).
module ram_wr_first (
    input  wire        clk,
    input  wire        en,
    input  wire        we,
    input  wire [4:0]  addr,
    input  wire [15:0] din,
    output reg  [15:0] dout
);
    reg [15:0] ram [0:31];

    always @(posedge clk) begin
        if (en) begin
            if (we) begin
                ram[addr] <= din;
                dout      <= din;
            end else begin
                dout <= ram[addr];
            end
        end
    end
endmodule
