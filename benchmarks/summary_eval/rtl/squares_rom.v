// Combinational ROM: the square of a 4-bit number.
module squares_rom (
    input  wire [3:0] n,
    output reg  [7:0] sq
);
    always @(*) begin
        case (n)
            4'd0:  sq = 8'd0;    4'd1:  sq = 8'd1;
            4'd2:  sq = 8'd4;    4'd3:  sq = 8'd9;
            4'd4:  sq = 8'd16;   4'd5:  sq = 8'd25;
            4'd6:  sq = 8'd36;   4'd7:  sq = 8'd49;
            4'd8:  sq = 8'd64;   4'd9:  sq = 8'd81;
            4'd10: sq = 8'd100;  4'd11: sq = 8'd121;
            4'd12: sq = 8'd144;  4'd13: sq = 8'd169;
            4'd14: sq = 8'd196;  default: sq = 8'd225;
        endcase
    end
endmodule
