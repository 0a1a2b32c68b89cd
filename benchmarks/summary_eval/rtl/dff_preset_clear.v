// D flip-flop with asynchronous clear and preset; clear wins.
module dff_preset_clear (
    input  wire clk,
    input  wire clr,
    input  wire pre,
    input  wire d,
    output reg  q
);
    always @(posedge clk or posedge clr or posedge pre) begin
        if (clr)
            q <= 1'b0;
        else if (pre)
            q <= 1'b1;
        else
            q <= d;
    end
endmodule
