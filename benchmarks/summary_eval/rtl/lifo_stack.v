// Eight-entry hardware stack (LIFO).
module lifo_stack #(
    parameter DW = 8
) (
    input  wire          clk,
    input  wire          rst_n,
    input  wire          push,
    input  wire          pop,
    input  wire [DW-1:0] din,
    output wire [DW-1:0] top,
    output wire          empty,
    output wire          full
);
    reg [DW-1:0] stack [0:7];
    reg [3:0]    sp;   // number of entries held, 0 to 8

    assign empty = (sp == 4'd0);
    assign full  = (sp == 4'd8);
    assign top   = stack[sp[2:0] - 3'd1];

    always @(posedge clk)
        if (push && !full)
            stack[sp[2:0]] <= din;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            sp <= 4'd0;
        else if (push && !full)
            sp <= sp + 4'd1;
        else if (pop && !empty)
            sp <= sp - 4'd1;
    end
endmodule
