module updown_counter #(
    parameter W = 8
) (
    input  wire         clk,
    input  wire         areset,
    input  wire         en,
    input  wire         up,
    output reg  [W-1:0] cnt
);
    always @(posedge clk or posedge areset) begin
        if (areset)
            cnt <= {W{1'b0}};
        else if (en) begin
            if (up)
                cnt <= cnt + 1'b1;
            else
                cnt <= cnt - 1'b1;
        end
    end
endmodule
