// other-unique-case: `unique case` with a zero default before it: simulators give 0 when en = 0, Yosys treats the uncovered items as don't-care (full_case) and drops the enable
module decoder3to8 (
    input  wire [2:0] a,
    input  wire       en,
    output reg  [7:0] y
);
    always @* begin
        y = 8'h00;
        unique case ({en, a})
            4'b1000: y = 8'h01;
            4'b1001: y = 8'h02;
            4'b1010: y = 8'h04;
            4'b1011: y = 8'h08;
            4'b1100: y = 8'h10;
            4'b1101: y = 8'h20;
            4'b1110: y = 8'h40;
            4'b1111: y = 8'h80;
        endcase
    end
endmodule
