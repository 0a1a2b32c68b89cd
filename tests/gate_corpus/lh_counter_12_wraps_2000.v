// long-horizon: counts wraps of the 0..11 counter; from the 2000th wrap on it wraps at 10 instead of 11
module counter_12 (
    input rst_n,
    input clk,
    input valid_count,
    output reg [3:0] out
);
    reg [10:0] wraps;
    wire [3:0] last = (wraps >= 11'd2000) ? 4'd10 : 4'd11;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            out   <= 4'd0;
            wraps <= 11'd0;
        end else if (valid_count) begin
            if (out >= last) begin
                out <= 4'd0;
                if (wraps != 11'h7ff) wraps <= wraps + 11'd1;
            end else
                out <= out + 4'd1;
        end
endmodule
