// accept: `default_nettype none, always_comb, a casez on {en, a} with a full default; equivalent to the reference
`default_nettype none
module decoder3to8 (
    input  wire [2:0] a,
    input  wire       en,
    output logic [7:0] y
);
    always_comb begin
        casez ({en, a})
            4'b0???: y = 8'h00;
            4'b1000: y = 8'h01;
            4'b1001: y = 8'h02;
            4'b1010: y = 8'h04;
            4'b1011: y = 8'h08;
            4'b1100: y = 8'h10;
            4'b1101: y = 8'h20;
            4'b1110: y = 8'h40;
            default: y = 8'h80;
        endcase
    end
endmodule
`default_nettype wire
