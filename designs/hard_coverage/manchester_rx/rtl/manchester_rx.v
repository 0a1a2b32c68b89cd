// manchester_rx: Manchester (IEEE 802.3 convention) line decoder and deframer.
// The line din passes through two registers. Bits are 8 clock cycles long: a 0 is high
// then low, a 1 low then high, so every bit has an edge in its middle. The decoder
// measures run, the cycles since the last line edge: an edge after 3-5 cycles is short,
// after 7-9 long, anything else a code violation. A long interval always ends in a
// mid-bit edge; two short ones make a boundary edge then a mid-bit edge. The bit is the
// line level after its mid-bit edge. The deframer counts alternating bits (preamble);
// after at least 10 of them two 1 bits in a row are the start-of-frame delimiter. Bytes
// follow LSB first, at most 10 of them; the frame ends when the line stops toggling
// (16 cycles without an edge). A carrier, present from the first delimiter, is lost
// after 300 cycles without an edge. Synchronous active-high reset.
module manchester_rx (
    input  wire       clk,
    input  wire       rst,
    input  wire       din,
    output reg        rx_valid,
    output reg  [7:0] rx_byte,
    output reg        sync,
    output reg        frame_ok,
    output reg  [3:0] frame_len,
    output reg        frame_err,
    output reg  [1:0] err_code,
    output reg        viol,
    output reg  [1:0] viol_kind,
    output reg        carrier,
    output reg        carrier_lost,
    output reg  [1:0] loss_cnt,
    output reg  [1:0] dst,
    output reg  [3:0] pre_cnt,
    output reg  [3:0] byte_cnt,
    output reg  [8:0] run,
    output reg        in_frame
);
    localparam [1:0] HUNT = 2'd0, MID = 2'd1, BND = 2'd2;
    localparam [3:0] PRE_MIN   = 4'd10;
    localparam [3:0] MAX_BYTES = 4'd10;
    localparam [8:0] EOS_GAP   = 9'd16;
    localparam [8:0] LOSS_GAP  = 9'd300;

    reg  [1:0] din_s;
    reg        lvl;
    reg        last_bit;
    reg  [2:0] bit_cnt;
    reg  [6:0] sr;

    wire       edge_    = din_s[1] ^ lvl;
    wire       is_short = run >= 9'd3 && run <= 9'd5;
    wire       is_long  = run >= 9'd7 && run <= 9'd9;
    wire [1:0] kind     = run < 9'd3 ? 2'd0 : run == 9'd6 ? 2'd1 : is_long ? 2'd2 : 2'd3;
    wire       bitv     = din_s[1];

    // decoder: a bit, a violation or the end of the stream this cycle
    reg        bit_ok, cv, eos;
    reg  [1:0] dst_n;
    always @(*) begin
        bit_ok = 1'b0;
        cv     = 1'b0;
        eos    = 1'b0;
        dst_n  = dst;
        if (edge_) begin
            if (dst == MID) begin
                if (is_short)
                    dst_n = BND;
                else if (is_long)
                    bit_ok = 1'b1;
                else begin
                    cv    = 1'b1;
                    dst_n = HUNT;
                end
            end else if (dst == BND) begin
                if (is_short) begin
                    bit_ok = 1'b1;
                    dst_n  = MID;
                end else begin
                    cv    = 1'b1;
                    dst_n = HUNT;
                end
            end else if (is_long) begin
                bit_ok = 1'b1;
                dst_n  = MID;
            end
        end else if (dst != HUNT && run == EOS_GAP) begin
            eos   = 1'b1;
            dst_n = HUNT;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            din_s <= 2'b00;  lvl <= 1'b0;      run <= 9'd0;       dst <= HUNT;
            last_bit <= 1'b0; bit_cnt <= 3'd0; sr <= 7'd0;        pre_cnt <= 4'd0;
            byte_cnt <= 4'd0; in_frame <= 1'b0; rx_valid <= 1'b0; rx_byte <= 8'd0;
            sync <= 1'b0;     frame_ok <= 1'b0; frame_len <= 4'd0; frame_err <= 1'b0;
            err_code <= 2'd0; viol <= 1'b0;    viol_kind <= 2'd0; carrier <= 1'b0;
            carrier_lost <= 1'b0; loss_cnt <= 2'd0;
        end else begin
            din_s        <= {din_s[0], din};
            lvl          <= din_s[1];
            dst          <= dst_n;
            rx_valid     <= 1'b0;
            sync         <= 1'b0;
            frame_ok     <= 1'b0;
            frame_err    <= 1'b0;
            viol         <= cv;
            carrier_lost <= 1'b0;
            if (cv)
                viol_kind <= kind;
            // edge timer and carrier
            if (edge_)
                run <= 9'd1;
            else if (run != LOSS_GAP)
                run <= run + 9'd1;
            if (carrier && !edge_ && run == LOSS_GAP - 9'd1) begin
                carrier      <= 1'b0;
                carrier_lost <= 1'b1;
                loss_cnt     <= loss_cnt + 2'd1;
            end
            // deframer
            if (cv || eos) begin
                pre_cnt <= 4'd0;
                if (in_frame) begin
                    in_frame <= 1'b0;
                    if (cv) begin
                        frame_err <= 1'b1;
                        err_code  <= 2'd1;
                    end else if (bit_cnt == 3'd0 && byte_cnt != 4'd0) begin
                        frame_ok  <= 1'b1;
                        frame_len <= byte_cnt;
                    end else begin
                        frame_err <= 1'b1;
                        err_code  <= 2'd2;
                    end
                end
            end else if (bit_ok) begin
                last_bit <= bitv;
                if (in_frame) begin
                    sr      <= {bitv, sr[6:1]};
                    bit_cnt <= bit_cnt + 3'd1;
                    if (bit_cnt == 3'd7) begin
                        if (byte_cnt == MAX_BYTES) begin
                            in_frame  <= 1'b0;
                            frame_err <= 1'b1;
                            err_code  <= 2'd3;
                        end else begin
                            rx_valid <= 1'b1;
                            rx_byte  <= {bitv, sr};
                            byte_cnt <= byte_cnt + 4'd1;
                        end
                    end
                end else if (pre_cnt != 4'd0 && bitv != last_bit) begin
                    if (pre_cnt != 4'd15)
                        pre_cnt <= pre_cnt + 4'd1;
                end else if (pre_cnt >= PRE_MIN && bitv && last_bit) begin
                    in_frame <= 1'b1;
                    sync     <= 1'b1;
                    carrier  <= 1'b1;
                    pre_cnt  <= 4'd0;
                    bit_cnt  <= 3'd0;
                    byte_cnt <= 4'd0;
                end else
                    pre_cnt <= 4'd1;
            end
        end
    end
endmodule
