// accept: the 32-bit cycle counter narrowed to the 4 bits 0..9 needs; equivalent, proven, and far cheaper (a large but honest PPA gain)
module tick_div10 (
    input  wire clk,
    input  wire rst_n,
    input  wire en,
    output wire tick
);
    reg [3:0] count;
    always @(posedge clk or negedge rst_n)
        if (!rst_n)
            count <= 4'd0;
        else if (en)
            count <= (count == 4'd9) ? 4'd0 : count + 4'd1;
    assign tick = en && (count == 4'd9);
endmodule
