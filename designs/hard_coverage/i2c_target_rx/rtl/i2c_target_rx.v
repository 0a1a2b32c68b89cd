// i2c_target_rx: I2C target (slave) with the 7-bit address 3B.
// scl and sda are registered twice (scl_q/sda_q, then scl_qq/sda_qq); START (sda
// falling while scl is high), STOP (sda rising while scl is high) and the scl
// edges are decoded from these registers. After a START the first byte is the
// address and the R/W bit (MSB first, sampled at scl rises). A matching address
// is acknowledged (sda_oe pulls SDA low for the 9th clock); any other address
// is ignored until the next START or STOP. A write stores each byte in wr_data
// (wr_valid pulse) and acknowledges it, up to 4 bytes a transaction (wr_cnt);
// a fifth byte is not acknowledged. A read sends wr_data (the last byte
// written) MSB first, again after each master ACK, until a master NACK.
// bus_abort pulses when a START or STOP comes after 2 to 7 bits of a byte.
// Asynchronous active-low reset.
module i2c_target_rx (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       scl,
    input  wire       sda,
    output reg        sda_oe,
    output reg        wr_valid,
    output reg  [7:0] wr_data,
    output reg  [2:0] wr_cnt,
    output reg        bus_abort,
    output wire       busy
);
    localparam [6:0] MY_ADDR = 7'h3B;
    localparam [2:0] WR_MAX  = 3'd4;
    localparam [2:0] S_IDLE = 3'd0, S_ADDR = 3'd1, S_AACK = 3'd2, S_WRITE = 3'd3,
                     S_WACK = 3'd4, S_READ = 3'd5, S_RACK = 3'd6, S_SKIP = 3'd7;

    reg [2:0] state;
    reg       scl_q, sda_q, scl_qq, sda_qq;
    reg [3:0] bit_cnt;                 // scl rises of the current byte
    reg [6:0] shreg, tx;               // bits received so far; bits still to send
    reg       rw, ack_clk;

    wire       scl_rise  = scl_q && !scl_qq;
    wire       scl_fall  = !scl_q && scl_qq;
    wire       start_det = scl_q && scl_qq && sda_qq && !sda_q;
    wire       stop_det  = scl_q && scl_qq && !sda_qq && sda_q;
    wire [7:0] byte_in   = {shreg, sda_q};
    wire       last_bit  = (bit_cnt == 4'd7);
    wire       in_byte   = (state == S_ADDR) || (state == S_WRITE) || (state == S_READ);
    wire       mid_byte  = in_byte && (bit_cnt >= 4'd2);
    assign busy = (state != S_IDLE);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            {scl_q, sda_q, scl_qq, sda_qq} <= 4'b1111;    // bus idle: both lines high
        else
            {scl_q, sda_q, scl_qq, sda_qq} <= {scl, sda, scl_q, sda_q};
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_IDLE;
            bit_cnt  <= 4'd0;
            shreg    <= 7'd0;
            tx       <= 7'd0;
            rw       <= 1'b0;
            ack_clk  <= 1'b0;
            sda_oe   <= 1'b0;
            wr_valid <= 1'b0;
            wr_data  <= 8'd0;
            wr_cnt   <= 3'd0;
            bus_abort <= 1'b0;
        end else begin
            wr_valid  <= 1'b0;
            bus_abort <= (start_det || stop_det) && mid_byte;
            if (start_det || stop_det) begin
                state   <= start_det ? S_ADDR : S_IDLE;
                bit_cnt <= 4'd0;
                ack_clk <= 1'b0;
                sda_oe  <= 1'b0;
                if (start_det)
                    wr_cnt <= 3'd0;
            end else begin
                case (state)
                    S_ADDR, S_WRITE: begin
                        if (scl_rise) begin
                            shreg   <= byte_in[6:0];
                            bit_cnt <= bit_cnt + 4'd1;
                            if (last_bit) begin
                                bit_cnt <= 4'd0;
                                if (state == S_ADDR) begin
                                    if (byte_in[7:1] == MY_ADDR) begin
                                        state <= S_AACK;
                                        rw    <= byte_in[0];
                                    end else begin
                                        state <= S_SKIP;             // not ours: no ACK
                                    end
                                end else if (wr_cnt == WR_MAX) begin
                                    state <= S_SKIP;                 // buffer full: NACK
                                end else begin
                                    state    <= S_WACK;
                                    wr_data  <= byte_in;
                                    wr_valid <= 1'b1;
                                    wr_cnt   <= wr_cnt + 3'd1;
                                end
                            end
                        end
                    end
                    S_AACK, S_WACK: begin
                        if (scl_fall && !ack_clk) begin
                            sda_oe <= 1'b1;                          // drive the ACK
                        end else if (scl_rise) begin
                            ack_clk <= 1'b1;                         // the master clocks it
                        end else if (scl_fall) begin
                            ack_clk <= 1'b0;
                            if (state == S_AACK && rw) begin
                                state  <= S_READ;
                                tx     <= wr_data[6:0];
                                sda_oe <= !wr_data[7];
                            end else begin
                                state  <= S_WRITE;
                                sda_oe <= 1'b0;
                            end
                        end
                    end
                    S_READ: begin
                        if (scl_rise) begin
                            bit_cnt <= bit_cnt + 4'd1;
                            if (last_bit) begin
                                bit_cnt <= 4'd0;
                                state   <= S_RACK;
                            end
                        end else if (scl_fall) begin
                            tx     <= {tx[5:0], 1'b0};
                            sda_oe <= !tx[6];                        // the next bit
                        end
                    end
                    S_RACK: begin
                        if (scl_fall && !ack_clk) begin
                            sda_oe <= 1'b0;                          // release for the master
                        end else if (scl_rise) begin
                            if (sda_q)
                                state <= S_SKIP;                     // master NACK: done
                            else
                                ack_clk <= 1'b1;
                        end else if (scl_fall) begin
                            ack_clk <= 1'b0;
                            state   <= S_READ;                       // master ACK: next byte
                            tx      <= wr_data[6:0];
                            sda_oe  <= !wr_data[7];
                        end
                    end
                    default: ;                                       // idle, skip
                endcase
            end
        end
    end
endmodule
