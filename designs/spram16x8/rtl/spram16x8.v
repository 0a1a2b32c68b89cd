// spram16x8: single-port synchronous RAM, 16 words x 8 bits, write-first.
// On a rising edge with en = 1: if we = 1 the word at addr is written with din
// and dout also takes din; if we = 0 dout takes the word at addr. With en = 0
// dout holds. The synchronous active-high reset clears only the dout register
// (the storage array is not reset, and a write during reset still happens).
module spram16x8 (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    input  wire       we,
    input  wire [3:0] addr,
    input  wire [7:0] din,
    output reg  [7:0] dout
);
    reg [7:0] mem [0:15];

    always @(posedge clk) begin
        if (en && we)
            mem[addr] <= din;
    end

    always @(posedge clk) begin
        if (rst)
            dout <= 8'd0;
        else if (en)
            dout <= we ? din : mem[addr];
    end
endmodule
