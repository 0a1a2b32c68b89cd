// Divide the clock by an even number DIV with a 50% duty cycle.
module clk_div_even #(
    parameter DIV = 4
) (
    input  wire clk,
    input  wire rst,
    output reg  clk_out
);
    localparam HALF = DIV / 2;

    reg [7:0] cnt;

    always @(posedge clk) begin
        if (rst) begin
            cnt     <= 8'd0;
            clk_out <= 1'b0;
        end else if (cnt == HALF - 1) begin
            cnt     <= 8'd0;
            clk_out <= ~clk_out;
        end else begin
            cnt <= cnt + 8'd1;
        end
    end
endmodule
