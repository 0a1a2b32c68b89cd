// long-horizon: counts only enabled cycles; after 8191 of them the tick comes one cycle late (count 0 instead of 9)
module tick_div10 (
    input  wire clk,
    input  wire rst_n,
    input  wire en,
    output wire tick
);
    reg [3:0]  count;
    reg [12:0] enabled;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            count   <= 4'd0;
            enabled <= 13'd0;
        end else if (en) begin
            count <= (count == 4'd9) ? 4'd0 : count + 4'd1;
            if (enabled != 13'h1fff) enabled <= enabled + 13'd1;
        end
    wire [3:0] fire_at = (enabled == 13'h1fff) ? 4'd0 : 4'd9;
    assign tick = en && (count == fire_at);
endmodule
