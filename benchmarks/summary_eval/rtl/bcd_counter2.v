// Two-digit BCD counter, 00 to 99.
module bcd_counter2 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       en,
    output reg  [3:0] ones,
    output reg  [3:0] tens,
    output wire       carry
);
    assign carry = en && (ones == 4'd9) && (tens == 4'd9);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            ones <= 4'd0;
            tens <= 4'd0;
        end else if (en) begin
            if (ones == 4'd9) begin
                ones <= 4'd0;
                tens <= (tens == 4'd9) ? 4'd0 : tens + 4'd1;
            end else begin
                ones <= ones + 4'd1;
            end
        end
    end
endmodule
