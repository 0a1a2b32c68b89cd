// long-horizon: counts rising edges of a; after 4096 of them `down` is never raised again
module edge_detect (
    input clk,
    input rst_n,
    input a,
    output reg rise,
    output reg down
);
    reg a0;
    reg [12:0] rises;
    always @(posedge clk or negedge rst_n)
        if (~rst_n) begin
            rise  <= 1'b0;
            down  <= 1'b0;
            a0    <= 1'b0;
            rises <= 13'd0;
        end else begin
            a0   <= a;
            rise <= a & ~a0;
            down <= ~a & a0 & ~rises[12];
            if (a & ~a0 & ~rises[12]) rises <= rises + 13'd1;
        end
endmodule
