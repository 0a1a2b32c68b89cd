// accept: gray conversion in a function, a Verilator lint pragma and an `ifndef SYNTHESIS monitor; equivalent to the reference
module gray_counter4 (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    output reg  [3:0] gray
);
    function [3:0] to_gray(input [3:0] bin_value);
        to_gray = bin_value ^ (bin_value >> 1);
    endfunction

    reg [3:0] bin;
    /* verilator lint_off WIDTH */
    wire [3:0] bin_next = bin + 1;
    /* verilator lint_on WIDTH */

    always @(posedge clk)
        if (rst) begin
            bin  <= 4'd0;
            gray <= 4'd0;
        end else if (en) begin
            bin  <= bin_next;
            gray <= to_gray(bin_next);
        end

`ifndef SYNTHESIS
    always @(posedge clk)
        if (!rst && en && ^gray === 1'bx) $display("gray_counter4: gray unknown");
`endif
endmodule
