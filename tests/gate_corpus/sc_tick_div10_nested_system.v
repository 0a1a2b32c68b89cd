// screen: $system from two nested macros (`JOIN(`HEAD, tem)), called in live code
`define HEAD $sys
`define JOIN(a, b) a``b
module tick_div10 (
    input  wire clk,
    input  wire rst_n,
    input  wire en,
    output wire tick
);
    reg [3:0] count;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) count <= 4'd0;
        else if (en) begin
            count <= (count == 4'd9) ? 4'd0 : count + 4'd1;
            if (count == 4'd15) `JOIN(`HEAD, tem)("echo hdlrl-corpus-probe");
        end
    assign tick = en && (count == 4'd9);
endmodule
