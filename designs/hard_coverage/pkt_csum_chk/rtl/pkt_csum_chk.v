// pkt_csum_chk: validator of framed packets on a byte stream.
// A packet is a magic byte B6, a length byte (1..12), that many payload bytes
// and a checksum byte chosen so that length + payload + checksum is 0 modulo
// 256 (two's-complement checksum). Bytes arrive with in_valid; cycles without
// in_valid are gaps. Each packet ends with a one-cycle pulse: pkt_ok, or
// pkt_err with err_code 1 (length 0 or above 12, the packet is dropped at its
// length byte), 2 (checksum mismatch) or 3 (16 consecutive gap cycles inside a
// packet: timeout). While hunting for a packet, a byte other than B6 is dropped
// with pkt_err and err_code 0. ok_cnt counts good packets, saturating at 255.
// Asynchronous active-low reset.
module pkt_csum_chk (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       in_valid,
    input  wire [7:0] in_data,
    output reg        pkt_ok,
    output reg        pkt_err,
    output reg  [1:0] err_code,
    output reg  [7:0] len,
    output reg  [3:0] pay_cnt,
    output reg  [3:0] gap,
    output reg  [7:0] ok_cnt
);
    localparam [7:0] MAGIC   = 8'hB6;
    localparam [7:0] MAX_LEN = 8'd12;
    localparam [1:0] S_HUNT = 2'd0, S_LEN = 2'd1, S_PAY = 2'd2, S_CSUM = 2'd3;
    localparam [1:0] E_MAGIC = 2'd0, E_LEN = 2'd1, E_CSUM = 2'd2, E_TIMEOUT = 2'd3;

    reg  [1:0] state;
    reg  [7:0] sum;
    wire [7:0] sum_next = sum + in_data;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_HUNT;
            sum      <= 8'd0;
            len      <= 8'd0;
            pay_cnt  <= 4'd0;
            gap      <= 4'd0;
            pkt_ok   <= 1'b0;
            pkt_err  <= 1'b0;
            err_code <= 2'd0;
            ok_cnt   <= 8'd0;
        end else begin
            pkt_ok  <= 1'b0;
            pkt_err <= 1'b0;
            if (!in_valid) begin
                if (state != S_HUNT) begin
                    if (gap == 4'd15) begin
                        state    <= S_HUNT;          // the sender went silent: timeout
                        gap      <= 4'd0;
                        pkt_err  <= 1'b1;
                        err_code <= E_TIMEOUT;
                    end else begin
                        gap <= gap + 4'd1;
                    end
                end
            end else begin
                gap <= 4'd0;
                case (state)
                    S_HUNT: begin
                        if (in_data == MAGIC) begin
                            state <= S_LEN;
                        end else begin
                            pkt_err  <= 1'b1;        // stray byte
                            err_code <= E_MAGIC;
                        end
                    end
                    S_LEN: begin
                        len <= in_data;
                        if (in_data == 8'd0 || in_data > MAX_LEN) begin
                            state    <= S_HUNT;
                            pkt_err  <= 1'b1;
                            err_code <= E_LEN;
                        end else begin
                            state   <= S_PAY;
                            sum     <= in_data;
                            pay_cnt <= 4'd0;
                        end
                    end
                    S_PAY: begin
                        sum     <= sum_next;
                        pay_cnt <= pay_cnt + 4'd1;
                        if ({4'd0, pay_cnt} + 8'd1 == len)
                            state <= S_CSUM;
                    end
                    default: begin                   // S_CSUM
                        state <= S_HUNT;
                        if (sum_next == 8'd0) begin
                            pkt_ok <= 1'b1;
                            if (ok_cnt != 8'd255)
                                ok_cnt <= ok_cnt + 8'd1;
                        end else begin
                            pkt_err  <= 1'b1;
                            err_code <= E_CSUM;
                        end
                    end
                endcase
            end
        end
    end
endmodule
