// accept: the counter with a translate_off'd range check ($display) and `default_nettype none; equivalent to the reference
`default_nettype none
module counter_12 (
    input  wire       rst_n,
    input  wire       clk,
    input  wire       valid_count,
    output reg  [3:0] out
);
    localparam [3:0] LAST = 4'd11;
    always @(posedge clk or negedge rst_n)
        if (!rst_n)           out <= 4'd0;
        else if (valid_count) out <= (out == LAST) ? 4'd0 : out + 4'd1;

    // synthesis translate_off
    always @(posedge clk)
        if (rst_n && out > LAST) $display("counter_12: out=%0d out of range", out);
    // synthesis translate_on
endmodule
`default_nettype wire
