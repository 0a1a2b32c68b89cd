// Prescaler: one-cycle strobe every DIVISOR clocks.
module tick_gen #(
    parameter DIVISOR = 100,
    parameter CW      = 7
) (
    input  wire clk,
    input  wire rst_n,
    output reg  tick
);
    reg [CW-1:0] count;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            count <= {CW{1'b0}};
            tick  <= 1'b0;
        end else if (count == DIVISOR - 1) begin
            count <= {CW{1'b0}};
            tick  <= 1'b1;
        end else begin
            count <= count + 1'b1;
            tick  <= 1'b0;
        end
    end
endmodule
