// bus_decoder_err: address decoder of a small bus bridge. A request (req, we,
// size, addr) is decoded at the clock edge into one of six regions of a 16-bit
// byte address space, and a registered response is returned the next cycle:
//   0 ROM      0000-0BFF  read-only
//   1 SRAM     0C00-2FFF
//   2 PERIPH_A 3000-33FF
//   3 PERIPH_B 3400-341F
//   4 DMA      8000-803F
//   5 KEY      FFE8-FFEF
// everything else is unmapped (region 7). size: 0 byte, 1 halfword, 2 word, 3
// reserved. Errors, in priority order: 1 unmapped address, 2 misaligned access
// (a halfword at an odd address, a word not on a 4-byte boundary) or reserved size,
// 3 write to ROM. An accepted access drives one bit of sel (one-hot by region).
// err_count counts error responses, saturating at 255.
// Asynchronous active-low reset: no response, sel 0, err_count 0.
module bus_decoder_err (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        req,
    input  wire        we,
    input  wire [1:0]  size,
    input  wire [15:0] addr,
    output reg         rsp_valid,
    output reg         rsp_err,
    output reg  [1:0]  err_code,
    output reg  [2:0]  region,
    output reg  [5:0]  sel,
    output reg         rsp_we,
    output reg  [1:0]  rsp_size,
    output reg  [15:0] rsp_addr,
    output reg  [7:0]  err_count
);
    localparam [1:0] E_OK = 2'd0, E_UNMAPPED = 2'd1, E_ALIGN = 2'd2, E_READONLY = 2'd3;
    localparam [2:0] R_ROM = 3'd0, R_NONE = 3'd7;

    // region of the request's address
    reg [2:0] hit;
    always @(*) begin
        if (addr < 16'h0C00)                          hit = 3'd0;
        else if (addr < 16'h3000)                     hit = 3'd1;
        else if (addr < 16'h3400)                     hit = 3'd2;
        else if (addr < 16'h3420)                     hit = 3'd3;
        else if (addr >= 16'h8000 && addr < 16'h8040) hit = 3'd4;
        else if (addr >= 16'hFFE8 && addr < 16'hFFF0) hit = 3'd5;
        else                                          hit = R_NONE;
    end

    wire misaligned = (size == 2'd3) || (size == 2'd1 && addr[0]) ||
                      (size == 2'd2 && addr[1:0] != 2'b00);

    reg [1:0] code;
    always @(*) begin
        if (hit == R_NONE)            code = E_UNMAPPED;
        else if (misaligned)          code = E_ALIGN;
        else if (we && hit == R_ROM)  code = E_READONLY;
        else                          code = E_OK;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            rsp_valid <= 1'b0;
            rsp_err   <= 1'b0;
            err_code  <= E_OK;
            region    <= R_NONE;
            sel       <= 6'd0;
            rsp_we    <= 1'b0;
            rsp_size  <= 2'd0;
            rsp_addr  <= 16'd0;
            err_count <= 8'd0;
        end else if (req) begin
            rsp_valid <= 1'b1;
            rsp_err   <= (code != E_OK);
            err_code  <= code;
            region    <= hit;
            sel       <= (code == E_OK) ? (6'd1 << hit) : 6'd0;
            rsp_we    <= we;
            rsp_size  <= size;
            rsp_addr  <= addr;
            if (code != E_OK && err_count != 8'd255)
                err_count <= err_count + 8'd1;
        end else begin
            rsp_valid <= 1'b0;
            rsp_err   <= 1'b0;
            sel       <= 6'd0;
        end
    end
endmodule
