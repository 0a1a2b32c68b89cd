module up_counter4 (
    input  wire       clk,
    input  wire       reset,
    output reg  [3:0] q
);
    always @(posedge clk) begin
        if (reset)
            q <= 4'd0;
        else
            q <= q + 4'd1;
    end
endmodule
