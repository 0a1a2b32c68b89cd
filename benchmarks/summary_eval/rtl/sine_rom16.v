// Quarter-wave sine table: 16 entries, 8-bit unsigned amplitude, registered output.
module sine_rom16 (
    input  wire       clk,
    input  wire [3:0] addr,
    output reg  [7:0] data
);
    always @(posedge clk) begin
        case (addr)
            4'd0:  data <= 8'd0;
            4'd1:  data <= 8'd25;
            4'd2:  data <= 8'd50;
            4'd3:  data <= 8'd74;
            4'd4:  data <= 8'd98;
            4'd5:  data <= 8'd120;
            4'd6:  data <= 8'd142;
            4'd7:  data <= 8'd162;
            4'd8:  data <= 8'd180;
            4'd9:  data <= 8'd197;
            4'd10: data <= 8'd212;
            4'd11: data <= 8'd225;
            4'd12: data <= 8'd236;
            4'd13: data <= 8'd244;
            4'd14: data <= 8'd250;
            default: data <= 8'd254;
        endcase
    end
endmodule
