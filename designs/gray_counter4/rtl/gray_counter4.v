// gray_counter4: 4-bit Gray-code counter with enable and synchronous
// active-high reset. A binary count is kept internally; the Gray output is
// registered (gray = next_bin ^ (next_bin >> 1)), so exactly one output bit
// changes per enabled clock edge and the sequence wraps after 16 states.
module gray_counter4 (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    output reg  [3:0] gray
);
    reg  [3:0] bin;
    wire [3:0] bin_next  = bin + 4'd1;
    wire [3:0] gray_next = bin_next ^ {1'b0, bin_next[3:1]};

    always @(posedge clk) begin
        if (rst) begin
            bin  <= 4'd0;
            gray <= 4'd0;
        end else if (en) begin
            bin  <= bin_next;
            gray <= gray_next;
        end
    end
endmodule
