// crc_magic: frame checker. Bytes arrive on data with valid; last marks the final
// byte of a frame. A running CRC-16/CCITT (polynomial 1021, initial FFFF, MSB first,
// no reflection, no final xor) is computed over every byte of the frame. At the last
// byte the frame is judged: match = 1 when the CRC over the whole frame (last byte
// included) equals the magic constant C0DE and the frame has 4 to 64 bytes; runt for
// frames under 4 bytes, too_long for frames over 64 bytes. The verdict outputs are
// one-cycle pulses registered at the edge that takes the last byte; frame_len holds
// the length of the last frame (saturating at 127). Asynchronous active-low reset.
module crc_magic (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        valid,
    input  wire [7:0]  data,
    input  wire        last,
    output reg  [15:0] crc,
    output reg         frame_done,
    output reg         match,
    output reg         runt,
    output reg         too_long,
    output reg  [6:0]  frame_len
);
    localparam [15:0] MAGIC = 16'hC0DE;
    localparam [15:0] INIT  = 16'hFFFF;

    // one byte of CRC-16/CCITT, MSB first
    function [15:0] crc_byte;
        input [15:0] c;
        input [7:0]  d;
        integer i;
        reg [15:0] x;
        begin
            x = c;
            for (i = 7; i >= 0; i = i - 1)
                x = {x[14:0], 1'b0} ^ ((x[15] ^ d[i]) ? 16'h1021 : 16'h0000);
            crc_byte = x;
        end
    endfunction

    reg  [6:0]  len;                               // bytes of the current frame so far
    wire [15:0] crc_next = crc_byte(crc, data);
    wire [6:0]  len_next = (len == 7'd127) ? len : len + 7'd1;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            crc        <= INIT;
            len        <= 7'd0;
            frame_done <= 1'b0;
            match      <= 1'b0;
            runt       <= 1'b0;
            too_long   <= 1'b0;
            frame_len  <= 7'd0;
        end else begin
            frame_done <= 1'b0;
            match      <= 1'b0;
            runt       <= 1'b0;
            too_long   <= 1'b0;
            if (valid) begin
                if (last) begin
                    frame_done <= 1'b1;
                    frame_len  <= len_next;
                    if (len_next < 7'd4)
                        runt <= 1'b1;
                    else if (len_next > 7'd64)
                        too_long <= 1'b1;
                    else if (crc_next == MAGIC)
                        match <= 1'b1;
                    crc <= INIT;                    // next frame
                    len <= 7'd0;
                end else begin
                    crc <= crc_next;
                    len <= len_next;
                end
            end
        end
    end
endmodule
