// packet_parser: byte-stream packet parser. A packet is the sync byte 0xA5,
// a type byte (0x01, 0x02, 0x04 or 0x08), a length byte (1..16), that many
// payload bytes and a checksum byte equal to the 8-bit sum of the type,
// length and payload bytes. Bytes count only when in_valid = 1. Each packet
// ends with a one-cycle pkt_ok or pkt_err pulse; err_kind says why:
// 1 bad sync (a byte other than 0xA5 between packets), 2 bad type, 3 bad
// length, 4 bad checksum, 5 timeout (TIMEOUT cycles without a byte inside a
// packet). After an error the parser waits for the next sync byte.
module packet_parser (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       in_valid,
    input  wire [7:0] in_byte,
    output reg        pkt_ok,
    output reg        pkt_err,
    output reg  [2:0] err_kind,
    output reg  [1:0] pkt_type,     // type of the last good packet (0..3 for 0x01..0x08)
    output reg  [4:0] pkt_len       // length of the last good packet
);
    localparam [2:0] S_IDLE = 3'd0, S_TYPE = 3'd1, S_LEN = 3'd2, S_PAYLOAD = 3'd3, S_CSUM = 3'd4;
    localparam [2:0] E_NONE = 3'd0, E_SYNC = 3'd1, E_TYPE = 3'd2, E_LEN = 3'd3, E_CSUM = 3'd4,
                     E_TIMEOUT = 3'd5;
    localparam [7:0] SYNC = 8'hA5;
    localparam [2:0] TIMEOUT = 3'd7;    // the 8th idle cycle inside a packet times out

    reg [2:0] state;
    reg [1:0] cur_type;
    reg [4:0] cur_len;
    reg [4:0] left;                     // payload bytes still to come
    reg [7:0] sum;
    reg [2:0] idle;                     // cycles without a byte inside a packet

    reg [1:0] type_idx;
    reg       type_ok;
    always @* begin
        type_ok = 1'b1;
        case (in_byte)
            8'h01:   type_idx = 2'd0;
            8'h02:   type_idx = 2'd1;
            8'h04:   type_idx = 2'd2;
            8'h08:   type_idx = 2'd3;
            default: begin type_idx = 2'd0; type_ok = 1'b0; end
        endcase
    end

    task fail;
        input [2:0] kind;
        begin
            pkt_err  <= 1'b1;
            err_kind <= kind;
            state    <= S_IDLE;
        end
    endtask

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= S_IDLE; pkt_ok <= 1'b0; pkt_err <= 1'b0; err_kind <= E_NONE;
            pkt_type <= 2'd0; pkt_len <= 5'd0; cur_type <= 2'd0; cur_len <= 5'd0;
            left <= 5'd0; sum <= 8'd0; idle <= 3'd0;
        end else begin
            pkt_ok <= 1'b0;
            pkt_err <= 1'b0;
            err_kind <= E_NONE;
            if (!in_valid) begin
                if (state != S_IDLE) begin
                    if (idle == TIMEOUT) begin
                        fail(E_TIMEOUT);
                        idle <= 3'd0;
                    end else begin
                        idle <= idle + 3'd1;
                    end
                end
            end else begin
                idle <= 3'd0;
                case (state)
                    S_IDLE: begin
                        if (in_byte == SYNC) state <= S_TYPE;
                        else                 fail(E_SYNC);
                    end
                    S_TYPE: begin
                        if (type_ok) begin
                            cur_type <= type_idx;
                            sum      <= in_byte;
                            state    <= S_LEN;
                        end else begin
                            fail(E_TYPE);
                        end
                    end
                    S_LEN: begin
                        if (in_byte >= 8'd1 && in_byte <= 8'd16) begin
                            cur_len <= in_byte[4:0];
                            left    <= in_byte[4:0];
                            sum     <= sum + in_byte;
                            state   <= S_PAYLOAD;
                        end else begin
                            fail(E_LEN);
                        end
                    end
                    S_PAYLOAD: begin
                        sum  <= sum + in_byte;
                        left <= left - 5'd1;
                        if (left == 5'd1) state <= S_CSUM;
                    end
                    default: begin   // S_CSUM
                        if (in_byte == sum) begin
                            pkt_ok   <= 1'b1;
                            pkt_type <= cur_type;
                            pkt_len  <= cur_len;
                            state    <= S_IDLE;
                        end else begin
                            fail(E_CSUM);
                        end
                    end
                endcase
            end
        end
    end
endmodule
