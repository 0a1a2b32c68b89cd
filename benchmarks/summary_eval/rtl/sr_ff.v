// Clocked set/clear flip-flop; clear dominates when both are asserted.
module sr_ff (
    input  wire clk,
    input  wire set,
    input  wire clear,
    output reg  q
);
    always @(posedge clk) begin
        if (clear)
            q <= 1'b0;
        else if (set)
            q <= 1'b1;
    end
endmodule
