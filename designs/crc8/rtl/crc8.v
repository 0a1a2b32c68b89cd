// crc8: byte-wide CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07; initial value 0, no reflection,
// no final XOR: CRC-8/SMBUS). Asynchronous active-low reset rst_n and synchronous clear clr
// set the register to 0. With en = 1 on a rising edge the register absorbs data, most
// significant bit first, and valid is 1 for the following cycle; clr wins over en.
module crc8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       clr,
    input  wire       en,
    input  wire [7:0] data,
    output reg  [7:0] crc,
    output reg        valid
);
    reg [7:0] next_crc;
    integer   bit_index;

    // Eight serial steps unrolled: shift left, XOR the polynomial when the bit shifted out
    // differs from the data bit.
    always @* begin
        next_crc = crc;
        for (bit_index = 7; bit_index >= 0; bit_index = bit_index - 1) begin
            if (next_crc[7] ^ data[bit_index])
                next_crc = {next_crc[6:0], 1'b0} ^ 8'h07;
            else
                next_crc = {next_crc[6:0], 1'b0};
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            crc   <= 8'h00;
            valid <= 1'b0;
        end else if (clr) begin
            crc   <= 8'h00;
            valid <= 1'b0;
        end else begin
            if (en)
                crc <= next_crc;
            valid <= en;
        end
    end
endmodule
