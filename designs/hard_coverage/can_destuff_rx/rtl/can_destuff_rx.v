// can_destuff_rx: receiver of CAN-style frames with bit stuffing, on a bit stream
// sampled when bit_en is 1. The bus idles recessive (1). After at least three recessive
// bits (idle_cnt = 3: integrated) a dominant bit is the start of frame (SOF). A frame is
// the SOF, an 11-bit identifier (MSB first), a 4-bit data length code (DLC; above 8 means
// 8 bytes), that many data bytes (MSB first) and an end field of three recessive bits.
// From the SOF to the last data bit the sender inserts a stuff bit after five equal bits
// (stuff bits count in the next run); the receiver drops it, and a sixth equal bit instead
// is a stuff error (the stuff bit owed after the last data bit is taken at the first end
// bit). A dominant bit in the end field is a form error. Both errors drop the frame, clear
// the run of good frames ok_streak and send the receiver back to idle, not integrated. A
// frame ending with the third recessive end bit pulses frame_ok, adds one to ok_streak
// (saturating at 7) and pulses match as well when its identifier is 07C (hex: its bits
// need two stuff bits), which id_hit flags from the end of the identifier on.
// Asynchronous active-low reset.
module can_destuff_rx (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        bit_en,
    input  wire        rxd,
    output reg  [2:0]  state,
    output reg  [10:0] id,
    output reg  [3:0]  dlc,
    output reg  [3:0]  byte_cnt,
    output reg  [7:0]  rx_byte,
    output reg  [2:0]  run_len,
    output reg  [1:0]  idle_cnt,
    output reg  [3:0]  stuff_cnt,
    output reg  [2:0]  ok_streak,
    output reg         id_hit,
    output reg         frame_ok,
    output reg         match,
    output reg         stuff_err,
    output reg         form_err
);
    localparam [2:0] S_IDLE = 3'd0, S_ID = 3'd1, S_DLC = 3'd2, S_DATA = 3'd3, S_EOF = 3'd4;
    localparam [10:0] MAGIC_ID = 11'h07C;

    reg        last_bit;   // the previous bit on the bus (stuff bits included)
    reg  [3:0] bit_cnt;    // bits taken in the current field
    reg  [6:0] shift;      // data bits of the byte being received

    wire [3:0]  nbytes   = (dlc > 4'd8) ? 4'd8 : dlc;
    wire        stuff_at = (run_len == 3'd5) && (state != S_EOF || bit_cnt == 4'd0);
    wire [10:0] id_next  = {id[9:0], rxd};
    wire [3:0]  dlc_next = {dlc[2:0], rxd};

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state     <= S_IDLE;
            id        <= 11'd0;
            dlc       <= 4'd0;
            byte_cnt  <= 4'd0;
            rx_byte   <= 8'd0;
            run_len   <= 3'd0;
            idle_cnt  <= 2'd0;
            stuff_cnt <= 4'd0;
            ok_streak <= 3'd0;
            id_hit    <= 1'b0;
            frame_ok  <= 1'b0;
            match     <= 1'b0;
            stuff_err <= 1'b0;
            form_err  <= 1'b0;
            last_bit  <= 1'b1;
            bit_cnt   <= 4'd0;
            shift     <= 7'd0;
        end else begin
            frame_ok  <= 1'b0;
            match     <= 1'b0;
            stuff_err <= 1'b0;
            form_err  <= 1'b0;
            if (bit_en) begin
                if (state == S_IDLE) begin
                    if (rxd) begin
                        if (idle_cnt != 2'd3)
                            idle_cnt <= idle_cnt + 2'd1;
                    end else if (idle_cnt == 2'd3) begin
                        state     <= S_ID;             // start of frame
                        bit_cnt   <= 4'd0;
                        run_len   <= 3'd1;
                        last_bit  <= 1'b0;
                        stuff_cnt <= 4'd0;
                        id_hit    <= 1'b0;
                    end else begin
                        idle_cnt <= 2'd0;              // dominant bit: not integrated yet
                    end
                end else if (stuff_at) begin
                    if (rxd == last_bit) begin
                        state     <= S_IDLE;           // a sixth equal bit: stuff error
                        idle_cnt  <= 2'd0;
                        stuff_err <= 1'b1;
                        ok_streak <= 3'd0;
                    end else begin
                        last_bit <= rxd;               // drop the stuff bit
                        run_len  <= 3'd1;
                        if (stuff_cnt != 4'd15)
                            stuff_cnt <= stuff_cnt + 4'd1;
                    end
                end else begin
                    if (state != S_EOF) begin
                        last_bit <= rxd;
                        run_len  <= (rxd == last_bit) ? run_len + 3'd1 : 3'd1;
                    end
                    case (state)
                        S_ID: begin
                            id      <= id_next;
                            bit_cnt <= bit_cnt + 4'd1;
                            if (bit_cnt == 4'd10) begin
                                state   <= S_DLC;
                                bit_cnt <= 4'd0;
                                id_hit  <= (id_next == MAGIC_ID);
                            end
                        end
                        S_DLC: begin
                            dlc      <= dlc_next;
                            bit_cnt  <= bit_cnt + 4'd1;
                            byte_cnt <= 4'd0;
                            if (bit_cnt == 4'd3) begin
                                state   <= (dlc_next == 4'd0) ? S_EOF : S_DATA;
                                bit_cnt <= 4'd0;
                            end
                        end
                        S_DATA: begin
                            shift   <= {shift[5:0], rxd};
                            bit_cnt <= bit_cnt + 4'd1;
                            if (bit_cnt == 4'd7) begin
                                rx_byte  <= {shift, rxd};
                                byte_cnt <= byte_cnt + 4'd1;
                                bit_cnt  <= 4'd0;
                                if (byte_cnt + 4'd1 == nbytes)
                                    state <= S_EOF;
                            end
                        end
                        default: begin                 // S_EOF
                            if (!rxd) begin
                                state     <= S_IDLE;   // dominant in the end field
                                idle_cnt  <= 2'd0;
                                form_err  <= 1'b1;
                                ok_streak <= 3'd0;
                            end else if (bit_cnt == 4'd2) begin
                                state    <= S_IDLE;
                                idle_cnt <= 2'd3;      // the end field integrates the bus
                                frame_ok <= 1'b1;
                                match    <= id_hit;
                                if (ok_streak != 3'd7)
                                    ok_streak <= ok_streak + 3'd1;
                            end else begin
                                bit_cnt <= bit_cnt + 4'd1;
                            end
                        end
                    endcase
                end
            end
        end
    end
endmodule
