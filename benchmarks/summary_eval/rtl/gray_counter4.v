module gray_counter4 (
    input  wire       clk,
    input  wire       reset,
    input  wire       enable,
    output reg  [3:0] gray
);
    reg [3:0] bin;

    always @(posedge clk or posedge reset) begin
        if (reset) begin
            bin  <= 4'd0;
            gray <= 4'd0;
        end else if (enable) begin
            bin  <= bin + 4'd1;
            gray <= (bin + 4'd1) ^ ((bin + 4'd1) >> 1);
        end
    end
endmodule
