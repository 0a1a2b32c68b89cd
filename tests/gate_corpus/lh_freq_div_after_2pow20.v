// long-horizon: a 21-bit cycle counter; CLK_50 freezes after 2^20 cycles, beyond even a 2^17-cycle reset-free simulation
module freq_div (CLK_in, CLK_50, CLK_10, CLK_1, RST);
    input CLK_in, RST;
    output reg CLK_50, CLK_10, CLK_1;
    reg [3:0]  cnt_10;
    reg [6:0]  cnt_100;
    reg [20:0] age;
    always @(posedge CLK_in or posedge RST)
        if (RST) begin
            CLK_50 <= 1'b0;
            age    <= 21'd0;
        end else begin
            if (!age[20]) begin
                CLK_50 <= ~CLK_50;
                age    <= age + 21'd1;
            end
        end
    always @(posedge CLK_in or posedge RST)
        if (RST) begin
            CLK_10 <= 1'b0;
            cnt_10 <= 4'd0;
        end else if (cnt_10 == 4'd4) begin
            CLK_10 <= ~CLK_10;
            cnt_10 <= 4'd0;
        end else
            cnt_10 <= cnt_10 + 4'd1;
    always @(posedge CLK_in or posedge RST)
        if (RST) begin
            CLK_1   <= 1'b0;
            cnt_100 <= 7'd0;
        end else if (cnt_100 == 7'd49) begin
            CLK_1   <= ~CLK_1;
            cnt_100 <= 7'd0;
        end else
            cnt_100 <= cnt_100 + 7'd1;
endmodule
